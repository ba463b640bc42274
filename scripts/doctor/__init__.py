"""`make doctor`: check a TensorFlow set-up (Rosetta, tensorflow-metal, Keras, devices, memory)
and say in plain words what is wrong and which command fixes it.

facts.py collects; rules.py runs the rules in order, which judge (pure functions) by subject in
rules_install.py, rules_keras.py and rules_runtime.py, sharing checks.py; report.py prints;
__main__.py is the CLI.
"""
