"""`python -m looplab` and the `looplab` command: the course's command line (_course/cli.py)."""

import sys

from ._course.cli import main

if __name__ == "__main__":
    sys.exit(main())
