import sys

from chickenfoot.cli.main import main

sys.exit(main())
