package cliflags

import (
	"fmt"
	"os"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/slurm"
)

// Slurm connection flag names; the token itself is never a flag (it would
// show in ps): it comes from $SLURM_JWT or --slurm-token-file.
const (
	FlagSlurmURL       = "slurm-url"
	FlagSlurmUser      = "slurm-user"
	FlagSlurmTokenFile = "slurm-token-file"
	FlagSlurmSocket    = "slurm-socket"
	FlagSlurmTimeout   = "slurm-timeout"
	FlagSlurmRetries   = "slurm-retries"
	FlagSlurmCAFile    = "slurm-ca-file"
	FlagSlurmInsecure  = "slurm-insecure-skip-verify"
	FlagSlurmBBPool    = "slurm-bb-pool"
	FlagSlurmScontrol  = "slurm-scontrol"
	FlagSlurmMaxAnswer = "slurm-max-response-size"
	EnvSlurmJWT        = "SLURM_JWT"
)

// Slurm are the flags of every command that talks to slurmrestd.
func Slurm() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagSlurmURL, EnvVars: []string{"SLURM_REST_URL", "STRATA_SLURM_URL"},
			Usage: "slurmrestd base URL, e.g. http://slurmctl:6820"},
		&cli.StringFlag{Name: FlagSlurmUser, EnvVars: []string{"SLURM_USER_NAME", "STRATA_SLURM_USER"},
			Usage: "user of the JWT (X-SLURM-USER-NAME); root or SlurmUser to change priorities"},
		&cli.StringFlag{Name: FlagSlurmTokenFile, EnvVars: []string{"STRATA_SLURM_TOKEN_FILE"},
			Usage: "file holding the JWT (mode 0600, re-read when it changes); default: $" + EnvSlurmJWT},
		&cli.StringFlag{Name: FlagSlurmSocket, EnvVars: []string{"STRATA_SLURM_SOCKET"},
			Usage: "slurmrestd unix socket (rest_auth/local) instead of TCP + JWT"},
		&cli.DurationFlag{Name: FlagSlurmTimeout, Value: slurm.DefaultTimeout, EnvVars: []string{"STRATA_SLURM_TIMEOUT"},
			Usage: "timeout of each slurmrestd request"},
		&cli.IntFlag{Name: FlagSlurmRetries, Value: slurm.DefaultRetries, EnvVars: []string{"STRATA_SLURM_RETRIES"},
			Usage: "retries on connection errors and transient 5xx answers (-1: none)"},
		&cli.StringFlag{Name: FlagSlurmCAFile, EnvVars: []string{"STRATA_SLURM_CA_FILE"},
			Usage: "PEM CA bundle to verify slurmrestd's TLS certificate"},
		&cli.BoolFlag{Name: FlagSlurmInsecure, EnvVars: []string{"STRATA_SLURM_INSECURE_SKIP_VERIFY"},
			Usage: "do not verify slurmrestd's TLS certificate (test clusters only)"},
		&cli.StringSliceFlag{Name: FlagSlurmBBPool, EnvVars: []string{"STRATA_SLURM_BB_POOLS"},
			Usage: "burst-buffer pool and capacity, `NAME=SIZE` (e.g. nvme=1T); repeatable (slurmrestd does not report pools; without any, they are read from scontrol show burst)"},
		&cli.StringFlag{Name: FlagSlurmScontrol, EnvVars: []string{"STRATA_SLURM_SCONTROL"},
			Usage: "`PATH` of the scontrol that reports the burst-buffer pools (scontrol show burst: capacity, use, granularity) when no --slurm-bb-pool is given; default: scontrol on $PATH; none: never"},
		&cli.StringFlag{Name: FlagSlurmMaxAnswer, Value: slurm.DefaultMaxResponseSize, EnvVars: []string{"STRATA_SLURM_MAX_RESPONSE_SIZE"},
			Usage: "largest slurmrestd answer read (binary units: 1G = 1 GiB, about 100,000 jobs); a larger one fails the read"},
	}
}

// WithoutPools is a ConnectSlurm adjustment for callers that never plan
// (the collector's GPU mapping, which snapshots every few seconds): no
// `scontrol show burst` per snapshot.
func WithoutPools(cfg *slurm.Config) { cfg.Scontrol = "none" }

// SlurmConfig turns the flags (and $SLURM_JWT) into a slurm.Config.
func SlurmConfig(c *cli.Context) slurm.Config {
	cfg := slurm.Config{
		URL:                c.String(FlagSlurmURL),
		User:               c.String(FlagSlurmUser),
		TokenFile:          c.String(FlagSlurmTokenFile),
		Socket:             c.String(FlagSlurmSocket),
		Timeout:            c.Duration(FlagSlurmTimeout),
		Retries:            c.Int(FlagSlurmRetries),
		CAFile:             c.String(FlagSlurmCAFile),
		InsecureSkipVerify: c.Bool(FlagSlurmInsecure),
		BurstBufferPools:   c.StringSlice(FlagSlurmBBPool),
		Scontrol:           c.String(FlagSlurmScontrol),
		MaxResponseSize:    c.String(FlagSlurmMaxAnswer),
	}
	if cfg.TokenFile == "" {
		cfg.Token = slurm.Secret(os.Getenv(EnvSlurmJWT))
	}
	return cfg
}

// ConnectSlurm builds a Slurm client from the flags; it fails with exit
// status 2 on a configuration error, naming the flag to fix.
func ConnectSlurm(c *cli.Context, adjust ...func(*slurm.Config)) (*slurm.Client, error) {
	cfg := SlurmConfig(c)
	for _, f := range adjust {
		f(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		return nil, usageErr(fmt.Errorf("slurm connection: %w", err))
	}
	// Each request, discovery included, is bounded by --slurm-timeout and
	// --slurm-retries inside the client.
	cl, err := slurm.New(c.Context, cfg, *zerolog.Ctx(c.Context))
	if err != nil {
		return nil, fmt.Errorf("connect to slurmrestd: %w", err)
	}
	return cl, nil
}
