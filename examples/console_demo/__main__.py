from examples.console_demo.calls import main

raise SystemExit(main())
