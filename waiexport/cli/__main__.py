"""``python -m waiexport.cli``: the command line, as the ``waiexport`` script runs it."""

from . import main

main()
