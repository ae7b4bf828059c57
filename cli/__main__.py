from cli.app import main

raise SystemExit(main())
