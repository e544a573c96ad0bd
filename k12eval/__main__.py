from k12eval.cli import main

main()
