from examples.voice_orchestrator.orchestrator import main

raise SystemExit(main())
