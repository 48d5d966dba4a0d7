"""Serve a checkout's built site (web/dist) with the headers it needs: looplab/_course/serve.py does it.

python scripts/serve.py [--port 8000] [--dir web/dist] [--quiet]
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
from looplab._course import serve

if __name__ == "__main__":
    sys.exit(serve.main(sys.argv[1:], prog="scripts/serve.py", site=ROOT / "web" / "dist"))
