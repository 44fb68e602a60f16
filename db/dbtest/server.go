package dbtest

import (
	"os"
	"testing"
)

// Server is a private throwaway Postgres for fault tests: it can be stopped
// and started again on the same port without disturbing other tests.
type Server struct {
	// URL points at the server's strata_test database.
	URL string
	dir string
}

// StartServer starts a dedicated server (scripts/pg-test.sh up) and tears
// it down when the test ends.
func StartServer(t testing.TB) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "strata-pgfault-")
	if err != nil {
		t.Fatal(err)
	}
	env, err := pgTest("up", dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("start dedicated postgres: %v", err)
	}
	t.Cleanup(func() {
		if _, err := pgTest("down", dir); err != nil {
			t.Logf("stop dedicated postgres: %v", err)
		}
	})
	return &Server{URL: env[EnvURL], dir: dir}
}

// Stop shuts the server down (fast mode), keeping its data.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if _, err := pgTest("stop", s.dir); err != nil {
		t.Fatalf("stop postgres: %v", err)
	}
}

// Start starts the server again on the same port.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if _, err := pgTest("start", s.dir); err != nil {
		t.Fatalf("start postgres: %v", err)
	}
}
