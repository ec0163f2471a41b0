import sys

from whylens.cli import main

sys.exit(main())
