"""Allow ``python -m druids_p2p`` as well as the ``druids`` console command."""

from druids_p2p.cli.main import main

if __name__ == "__main__":
    main()
