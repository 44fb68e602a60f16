// Package slurm is Strata's only door to Slurm: it reads the queue, nodes and
// partitions from slurmrestd into a planner.Snapshot and writes the planner's
// decisions back to pending jobs (Apply). It speaks slurmrestd's OpenAPI
// through SchedMD's generated client (github.com/SlinkyProject/slurm-client,
// api/v0042) behind a small internal adapter, so that supporting another API
// version is one new file.
package slurm

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/strata-hpc/strata/burstbuffer"
)

// Secret is a credential. It prints as "[redacted]" through fmt, JSON and
// text marshalling, so that a Config can be logged safely; convert it with
// string(s) only where the value is sent.
type Secret string

// String implements fmt.Stringer without revealing the secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString implements fmt.GoStringer without revealing the secret.
func (s Secret) GoString() string { return `slurm.Secret("` + s.String() + `")` }

// MarshalText implements encoding.TextMarshaler without revealing the secret.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Config configures a Client. Build it in cmd from flags and environment and
// pass it to New; nothing in this package reads flags or env vars.
type Config struct {
	// URL is slurmrestd's base URL, e.g. http://slurmctl:6820. With Socket
	// set it may be empty (the host part is then ignored).
	URL string
	// User is sent as X-SLURM-USER-NAME (JWT auth). Priority changes need
	// root or SlurmUser (or an operator when slurmdbd is used).
	User string
	// Token is a JWT sent as X-SLURM-USER-TOKEN. TokenFile, when set, wins:
	// it is re-read whenever it changes and must not be readable by group or
	// others (mode 0600 or stricter). A file may hold the bare token or the
	// "SLURM_JWT=..." line printed by `scontrol token`.
	Token     Secret
	TokenFile string
	// Socket is a unix socket of slurmrestd (rest_auth/local); when set,
	// requests go through it and no token is required.
	Socket string
	// CAFile is a PEM bundle to verify slurmrestd's TLS certificate;
	// InsecureSkipVerify disables verification (test clusters only).
	CAFile             string
	InsecureSkipVerify bool
	// Timeout bounds each HTTP attempt (default 15 s). Retries is how many
	// times a failed attempt is repeated on connection errors and 5xx
	// answers that carry no Slurm error (default 3; negative = none).
	// RetryBackoff is the first pause, doubled per retry and capped at 5 s
	// (default 250 ms).
	Timeout      time.Duration
	Retries      int
	RetryBackoff time.Duration
	// BurstBufferPools declares the burst-buffer pools and their capacity
	// as "NAME=SIZE" (e.g. "nvme=1T"), since slurmrestd does not expose
	// them. Snapshot reports them with the space held by jobs.
	BurstBufferPools []string
	// Scontrol is the scontrol that reports the pools (`scontrol show
	// burst`: capacity, use and granularity, from the lua plugin) when
	// BurstBufferPools declares none: "" looks "scontrol" up on PATH (no
	// pools when it is missing), "none" never runs it.
	Scontrol string
	// MaxResponseSize bounds every slurmrestd answer (a size such as "1G",
	// "512M", "2GiB"; binary units): an answer whose bytes read pass it
	// fails with ErrResponseTooLarge, counted while it streams, before
	// more is read or decoded. "" means DefaultMaxResponseSize.
	MaxResponseSize string
}

// Defaults of the zero Config fields.
const (
	DefaultTimeout      = 15 * time.Second
	DefaultRetries      = 3
	DefaultRetryBackoff = 250 * time.Millisecond
	maxRetryBackoff     = 5 * time.Second
	// DefaultMaxResponseSize is 1 GiB: slurmrestd's pretty-printed job
	// list takes about 10 KB per job (95 MB for 10,000 jobs, measured), so
	// 1 GiB holds about 100,000 jobs, ten times Slurm's default MaxJobCount;
	// decoding it costs about a quarter of its size (23 MB for the 95 MB
	// list). A site with a larger queue raises it.
	DefaultMaxResponseSize = "1G"
)

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Retries == 0 {
		c.Retries = DefaultRetries
	}
	if c.Retries < 0 {
		c.Retries = 0
	}
	if c.RetryBackoff <= 0 {
		c.RetryBackoff = DefaultRetryBackoff
	}
	if c.URL == "" && c.Socket != "" {
		c.URL = "http://slurmrestd"
	}
	if c.MaxResponseSize == "" {
		c.MaxResponseSize = DefaultMaxResponseSize
	}
	return c
}

// maxResponseBytes is MaxResponseSize in bytes (checked by Validate).
func (c Config) maxResponseBytes() int64 {
	n, err := burstbuffer.ParseSize(c.withDefaults().MaxResponseSize)
	if err != nil || n <= 0 {
		n, _ = burstbuffer.ParseSize(DefaultMaxResponseSize)
	}
	return n
}

// Validate reports the first configuration problem, naming the setting.
func (c Config) Validate() error {
	if c.URL == "" && c.Socket == "" {
		return errors.New("slurmrestd url is empty: set --slurm-url (SLURM_REST_URL) or --slurm-socket")
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil {
			return fmt.Errorf("slurmrestd url %q: %w", c.URL, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("slurmrestd url %q: want http://host:port or https://host:port", c.URL)
		}
	}
	if c.Socket == "" && c.Token == "" && c.TokenFile == "" {
		return errors.New("no slurmrestd token: set SLURM_JWT or --slurm-token-file (STRATA_SLURM_TOKEN_FILE), or use --slurm-socket")
	}
	if (c.Token != "" || c.TokenFile != "") && c.User == "" {
		return errors.New("slurm user is empty: set --slurm-user (SLURM_USER_NAME) to the token's user")
	}
	if _, err := parsePools(c.BurstBufferPools); err != nil {
		return err
	}
	if c.MaxResponseSize != "" {
		if n, err := burstbuffer.ParseSize(c.MaxResponseSize); err != nil || n < 1<<20 {
			return fmt.Errorf("--slurm-max-response-size %q: want a size of at least 1M, such as 1G or 2GiB", c.MaxResponseSize)
		}
	}
	if c.Timeout < 0 || c.RetryBackoff < 0 {
		return errors.New("slurm timeout and retry backoff must not be negative")
	}
	return nil
}
