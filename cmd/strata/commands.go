package main

import "github.com/urfave/cli/v2"

// commands lists every subcommand, in the order `strata help` shows them:
// the queue and the planner first, then telemetry and reports, then tools.
// Each is defined in its own file.
func commands() []*cli.Command {
	return []*cli.Command{
		queueCommand(), planCommand(), runCommand(), restoreCommand(), explainCommand(), envCommand(), hintCommand(),
		collectCommand(), dbCommand(), reportCommand(), serveCommand(),
		simulateCommand(), configCommand(), versionCommand(), genDocsCommand(),
	}
}
