package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/cmd/strata/internal/web"
)

// Flag names of `strata serve`.
const (
	flagServeListen   = "listen"
	flagServeAuthFile = "basic-auth-file"
	flagServeTLSCert  = "tls-cert"
	flagServeTLSKey   = "tls-key"
	flagServeProxies  = "trusted-proxies"
	flagServeUserHdr  = "user-header"
	flagServeAdmins   = "admins"
	// flagServeMetrics is --metrics-listen of serve; its first name (the
	// configuration key, `[serve] metrics-listen`) differs from the
	// daemon's metrics-listen so that one configuration file can serve both.
	flagServeMetrics = "serve-metrics-listen"
)

func serveCommand() *cli.Command { return serveCommandWith(openDBReportSource) }

func serveCommandWith(open openSourceFunc) *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: flagServeListen, Value: "127.0.0.1:8080", EnvVars: []string{"STRATA_LISTEN"},
			Usage: "address to listen on (keep it on loopback unless TLS and basic auth are set)"},
		&cli.StringFlag{Name: flagServeAuthFile, EnvVars: []string{"STRATA_BASIC_AUTH_FILE"},
			Usage: "require HTTP basic auth: `FILE` of user:pbkdf2-sha256$... lines (see strata serve passwd)"},
		&cli.StringFlag{Name: flagServeTLSCert, EnvVars: []string{"STRATA_TLS_CERT"}, Usage: "TLS certificate (PEM)"},
		&cli.StringFlag{Name: flagServeTLSKey, EnvVars: []string{"STRATA_TLS_KEY"}, Usage: "TLS private key (PEM)"},
		&cli.StringSliceFlag{Name: flagServeProxies, EnvVars: []string{"STRATA_TRUSTED_PROXIES"},
			Usage: "reverse proxies (`ADDR`: an address or CIDR prefix; several comma-separated) whose X-Forwarded-For and --user-header are believed; from any other address they are ignored"},
		&cli.StringFlag{Name: flagServeUserHdr, EnvVars: []string{"STRATA_USER_HEADER"},
			Usage: "sign in the identity a trusted proxy passes in this `HEADER` (X-Forwarded-User, Remote-User); needs --trusted-proxies"},
		&cli.StringSliceFlag{Name: flagServeAdmins, EnvVars: []string{"STRATA_ADMINS"},
			Usage: "logins and site identities (`NAME`,...) that see every job (admin role)"},
		&cli.StringFlag{Name: flagReportTZ, Value: "Local", EnvVars: []string{"STRATA_TIMEZONE"},
			Usage: "time zone for times and day buckets (IANA name, Local or UTC)"},
		&cli.StringFlag{Name: flagServeMetrics, Aliases: []string{"metrics-listen"}, Value: "127.0.0.1:9466",
			EnvVars: cliflags.EnvOf(flagServeMetrics),
			Usage:   "serve the web page's Prometheus /metrics on this address ('' = off; the daemon's is 9464, the collector's 9465)"},
	}
	flags = append(flags, energyFlags()...)
	flags = append(flags, reportDBFlags()...)
	return &cli.Command{
		Name:  "serve",
		Usage: "read-only web page of energy reports and planner decisions (with the same data as JSON)",
		Description: "Pages: / (overview: energy and GPU-hours over time, top users and accounts,\n" +
			"idle-GPU waste, planner decisions), /by/partition, /by/node, /by/day, /job/ID (one job),\n" +
			"/search?q=JOBID|USER. JSON: /api/energy,\n" +
			"/api/usage, /api/decisions, /api/job/ID (same query parameters as the pages:\n" +
			"start, end, by, user, account, partition, job). Works without JavaScript and\n" +
			"without Internet access (charts are embedded).",
		Flags:       flags,
		Subcommands: []*cli.Command{passwdCommand()},
		Action:      func(c *cli.Context) error { return runServe(c, open) },
	}
}

// runServe checks the flags and serves the web page (web.Run).
func runServe(c *cli.Context, open openSourceFunc) error {
	loc, err := report.LoadZone(c.String(flagReportTZ))
	if err != nil {
		return usageError(err)
	}
	site := web.Site{Listen: c.String(flagServeListen), AuthFile: c.String(flagServeAuthFile),
		TLSCert: c.String(flagServeTLSCert), TLSKey: c.String(flagServeTLSKey), MetricsListen: c.String(flagServeMetrics)}
	if (site.TLSCert == "") != (site.TLSKey == "") {
		return usageError(errors.New("serve: --tls-cert and --tls-key go together"))
	}
	proxies, err := web.ParseProxies(c.StringSlice(flagServeProxies))
	if err != nil {
		return usageError(err)
	}
	if c.String(flagServeUserHdr) != "" && len(proxies) == 0 {
		return usageError(errors.New("serve: --user-header needs --trusted-proxies (the proxies allowed to pass an identity)"))
	}
	lg := logger(c).With().Str("component", "serve").Logger()
	cfg := web.Config{Location: loc, Log: lg, Factors: energyFactors(c), TrustedProxies: proxies,
		UserHeader: c.String(flagServeUserHdr), Admins: c.StringSlice(flagServeAdmins)}
	if site.MetricsListen != "" {
		cfg.Metrics = web.NewMetrics()
		cfg.Metrics.SetBuildInfo(version, commit)
	}
	return web.Run(c.Context, site, open.opener(c), cfg)
}

func passwdCommand() *cli.Command {
	return &cli.Command{
		Name:      "passwd",
		Usage:     "print a basic-auth file line for USER (password read from stdin)",
		ArgsUsage: "USER",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "role", Value: "user",
				Usage: "what the login sees: user (its own jobs), coordinator=ACCT[,ACCT] (those accounts' jobs too) or admin (everything)"},
			&cli.StringFlag{Name: "slurm-user", Usage: "the Slurm user the login stands for (default: the login name)"},
		},
		Action: func(c *cli.Context) error {
			line, err := web.PasswdLine(c.Args().First(), c.String("role"), c.String("slurm-user"), os.Stdin)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(c.App.Writer, line)
			return err
		},
	}
}
