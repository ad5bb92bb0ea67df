from kernelint.cli import main

raise SystemExit(main())
