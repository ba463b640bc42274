"""`python -m scripts.add_sessions` runs scripts.results.add_sessions."""

import sys

from scripts.results.add_sessions import main

if __name__ == "__main__":
    sys.exit(main())
