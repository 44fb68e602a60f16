package main

import "github.com/urfave/cli/v2"

// commands lists every subcommand; each is defined in its own file.
func commands() []*cli.Command {
	return []*cli.Command{
		versionCommand(),
		hintCommand(),
		simulateCommand(),
		configCommand(),
		reportCommand(), serveCommand(),
		runCommand(), explainCommand(), envCommand(),
		queueCommand(), planCommand(),
		dbCommand(), collectCommand(),
	}
}
