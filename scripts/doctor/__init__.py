"""`make doctor`: check a TensorFlow set-up (Rosetta, tensorflow-metal, Keras, devices, memory)
and say in plain words what is wrong and which command fixes it.

facts.py collects, rules.py judges (pure functions), report.py prints, __main__.py is the CLI.
"""
