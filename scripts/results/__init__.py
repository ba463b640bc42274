"""The results commands' stages: validating results files (make validate) and adding
sessions from another file (add_sessions.py)."""
