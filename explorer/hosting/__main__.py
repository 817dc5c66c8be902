from explorer.hosting.server import main

main()
