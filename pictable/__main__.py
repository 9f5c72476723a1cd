import sys

from pictable.cli import main

sys.exit(main())
