package slurm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/strata-hpc/strata/internal/secretfile"
)

// TokenSource yields the JWT to send with each request. Token must be safe
// for concurrent use and must never put the token into an error message.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// StaticToken is a TokenSource that always returns the same token.
type StaticToken Secret

// Token implements TokenSource.
func (s StaticToken) Token(context.Context) (string, error) { return string(s), nil }

// FileToken is a TokenSource reading a token file. The file is re-read when
// its size or modification time changes (token rotation without restart)
// and is refused when group or others may read it, or when it is owned by
// neither the user Strata runs as nor root.
type FileToken struct {
	path string

	mu    sync.Mutex
	mod   time.Time
	size  int64
	token string
}

// NewFileToken returns a FileToken for path; the file is read on first use.
func NewFileToken(path string) *FileToken { return &FileToken{path: path} }

// Token implements TokenSource.
func (f *FileToken) Token(context.Context) (string, error) {
	st, err := secretfile.Check("slurm token file", f.path)
	if err != nil {
		return "", fmt.Errorf("read slurm token file: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token != "" && st.ModTime().Equal(f.mod) && st.Size() == f.size {
		return f.token, nil
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return "", fmt.Errorf("read slurm token file: %w", err)
	}
	tok := parseTokenFile(string(b))
	if tok == "" {
		return "", fmt.Errorf("slurm token file %s holds no token", f.path)
	}
	f.token, f.mod, f.size = tok, st.ModTime(), st.Size()
	return tok, nil
}

// parseTokenFile accepts a bare token or the "SLURM_JWT=..." line printed
// by `scontrol token` (optionally with "export "), ignoring blank lines.
func parseTokenFile(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "export "))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if v, ok := strings.CutPrefix(line, "SLURM_JWT="); ok {
			return strings.Trim(v, `"'`)
		}
		if !strings.Contains(line, "=") {
			return line
		}
	}
	return ""
}
