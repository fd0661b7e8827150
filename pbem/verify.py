"""`python3 -m pbem.verify GAME.json [--head VERSION:HASH ...]`: the command every notice, the
audit page and the README give players. The verifier itself is `pbem.audit.verify`; this name
stays so that what players were told keeps working."""

import sys

from pbem.audit.verify import main

if __name__ == "__main__":
    sys.exit(main())
