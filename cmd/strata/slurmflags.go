package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/slurm"
)

// Slurm connection flag names; the token itself is never a flag (it would
// show in ps): it comes from $SLURM_JWT or --slurm-token-file.
const (
	flagSlurmURL       = "slurm-url"
	flagSlurmUser      = "slurm-user"
	flagSlurmTokenFile = "slurm-token-file"
	flagSlurmSocket    = "slurm-socket"
	flagSlurmTimeout   = "slurm-timeout"
	flagSlurmRetries   = "slurm-retries"
	flagSlurmCAFile    = "slurm-ca-file"
	flagSlurmInsecure  = "slurm-insecure-skip-verify"
	flagSlurmBBPool    = "slurm-bb-pool"
	envSlurmJWT        = "SLURM_JWT"
)

// slurmFlags are the flags of every command that talks to slurmrestd.
func slurmFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagSlurmURL, EnvVars: []string{"SLURM_REST_URL", "STRATA_SLURM_URL"},
			Usage: "slurmrestd base URL, e.g. http://slurmctl:6820"},
		&cli.StringFlag{Name: flagSlurmUser, EnvVars: []string{"SLURM_USER_NAME", "STRATA_SLURM_USER"},
			Usage: "user of the JWT (X-SLURM-USER-NAME); root or SlurmUser to change priorities"},
		&cli.StringFlag{Name: flagSlurmTokenFile, EnvVars: []string{"STRATA_SLURM_TOKEN_FILE"},
			Usage: "file holding the JWT (mode 0600, re-read when it changes); default: $" + envSlurmJWT},
		&cli.StringFlag{Name: flagSlurmSocket, EnvVars: []string{"STRATA_SLURM_SOCKET"},
			Usage: "slurmrestd unix socket (rest_auth/local) instead of TCP + JWT"},
		&cli.DurationFlag{Name: flagSlurmTimeout, Value: slurm.DefaultTimeout, EnvVars: []string{"STRATA_SLURM_TIMEOUT"},
			Usage: "timeout of each slurmrestd request"},
		&cli.IntFlag{Name: flagSlurmRetries, Value: slurm.DefaultRetries, EnvVars: []string{"STRATA_SLURM_RETRIES"},
			Usage: "retries on connection errors and transient 5xx answers (-1: none)"},
		&cli.StringFlag{Name: flagSlurmCAFile, EnvVars: []string{"STRATA_SLURM_CA_FILE"},
			Usage: "PEM CA bundle to verify slurmrestd's TLS certificate"},
		&cli.BoolFlag{Name: flagSlurmInsecure, EnvVars: []string{"STRATA_SLURM_INSECURE_SKIP_VERIFY"},
			Usage: "do not verify slurmrestd's TLS certificate (test clusters only)"},
		&cli.StringSliceFlag{Name: flagSlurmBBPool, EnvVars: []string{"STRATA_SLURM_BB_POOLS"},
			Usage: "burst-buffer pool and capacity, NAME=SIZE (e.g. nvme=1T); repeatable (slurmrestd does not report pools)"},
	}
}

// slurmConfig turns the flags (and $SLURM_JWT) into a slurm.Config.
func slurmConfig(c *cli.Context) slurm.Config {
	cfg := slurm.Config{
		URL:                c.String(flagSlurmURL),
		User:               c.String(flagSlurmUser),
		TokenFile:          c.String(flagSlurmTokenFile),
		Socket:             c.String(flagSlurmSocket),
		Timeout:            c.Duration(flagSlurmTimeout),
		Retries:            c.Int(flagSlurmRetries),
		CAFile:             c.String(flagSlurmCAFile),
		InsecureSkipVerify: c.Bool(flagSlurmInsecure),
		BurstBufferPools:   c.StringSlice(flagSlurmBBPool),
	}
	if cfg.TokenFile == "" {
		cfg.Token = slurm.Secret(os.Getenv(envSlurmJWT))
	}
	return cfg
}

// connectSlurm builds a Slurm client from the flags; it fails with exit
// status 2 on a configuration error, naming the flag to fix.
func connectSlurm(c *cli.Context) (*slurm.Client, error) {
	cfg := slurmConfig(c)
	if err := cfg.Validate(); err != nil {
		return nil, exitError{code: 2, err: fmt.Errorf("slurm connection: %w", err)}
	}
	// Each request, discovery included, is bounded by --slurm-timeout and
	// --slurm-retries inside the client.
	cl, err := slurm.New(c.Context, cfg, logger(c))
	if err != nil {
		return nil, fmt.Errorf("connect to slurmrestd: %w", err)
	}
	return cl, nil
}
