// Package dbtest gives tests a real, freshly migrated Postgres database.
//
// Tests connect to the server named by STRATA_TEST_DATABASE (a postgres://
// URL; `make test` starts one). When it is unset, Main starts a throwaway
// server with scripts/pg-test.sh and stops it afterwards: tests never skip
// for lack of a database.
package dbtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
)

// EnvURL names the variable holding the test server's URL.
const EnvURL = "STRATA_TEST_DATABASE"

// Main runs the package's tests, first starting a throwaway Postgres when
// EnvURL is unset and the tests are not -short. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }
func Main(m *testing.M) int {
	flag.Parse()
	if os.Getenv(EnvURL) != "" || testing.Short() {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "strata-dbtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbtest:", err)
		return 1
	}
	env, err := pgTest("up", dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbtest: start postgres:", err)
		return 1
	}
	defer pgTest("down", dir)
	os.Setenv(EnvURL, env[EnvURL])
	return m.Run()
}

// URL creates a fresh, empty database on the test server, drops it when the
// test ends, and returns its URL.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Fatalf("%s is not set: call dbtest.Main from TestMain, or run `make test`", EnvURL)
	}
	name := "strata_t_" + randomHex(t, 6)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to test server: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Logf("drop test database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String()
}

// New returns a Store on a fresh database migrated to the latest schema.
func New(t testing.TB) *db.Store {
	t.Helper()
	return Open(t, URL(t), true)
}

// Open opens a Store on url, migrating it when migrate is set, and closes it
// when the test ends.
func Open(t testing.TB, url string, migrate bool) *db.Store {
	t.Helper()
	ctx := context.Background()
	s, err := db.Open(ctx, db.Config{URL: url})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(s.Close)
	if migrate {
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}
	return s
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// pgTest runs scripts/pg-test.sh cmd dir and returns DIR/env as a map
// (after "up").
func pgTest(cmd, dir string) (map[string]string, error) {
	script, err := scriptPath()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", script, cmd, dir)
	c.WaitDelay = 5 * time.Second // postgres may inherit the output pipe: do not wait for it
	out, err := c.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("pg-test.sh %s: %w: %s", cmd, err, strings.TrimSpace(string(out)))
	}
	if cmd != "up" {
		return nil, nil
	}
	return readEnv(filepath.Join(dir, "env"))
}

func readEnv(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read pg-test env: %w", err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	return env, sc.Err()
}

// scriptPath finds scripts/pg-test.sh under $STRATA_REPO_ROOT or in the
// module root above the working directory.
func scriptPath() (string, error) {
	if root := os.Getenv("STRATA_REPO_ROOT"); root != "" {
		return filepath.Join(root, "scripts", "pg-test.sh"), nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "scripts", "pg-test.sh"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("dbtest: go.mod not found above the working directory")
		}
		dir = parent
	}
}
