package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestQueriesLoad: every query name the package's code asks for (q.get or
// s.strings with a literal name) exists in queries/*.sql and is not empty.
func TestQueriesLoad(t *testing.T) {
	q, err := loadQueries()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	used := regexp.MustCompile(`(?:q\.get|s\.strings\(ctx,)\s*\(?"([A-Za-z]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range used.FindAllStringSubmatch(string(src), -1) {
			seen++
			if s, err := q.get(m[1]); err != nil || strings.TrimSpace(s) == "" {
				t.Errorf("%s uses query %s: %q, %v", f, m[1], s, err)
			}
		}
	}
	if seen < 20 {
		t.Errorf("found only %d query uses in the package: the pattern no longer matches the code", seen)
	}
	if _, err := q.get("NoSuchQuery"); err == nil {
		t.Error("unknown query: want an error")
	}
}

func TestQueriesParse(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    queries
		wantErr bool
	}{
		{name: "two queries, comments kept in body", text: "-- header\n-- name: A\nSELECT 1;\n\n-- name: B\n-- why\nSELECT 2;\n",
			want: queries{"A": "SELECT 1;", "B": "-- why\nSELECT 2;"}},
		{name: "duplicate name", text: "-- name: A\nSELECT 1;\n-- name: A\nSELECT 2;\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := queries{}
			err := got.parse("x.sql", tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr {
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestInterpretError(t *testing.T) {
	tests := []struct {
		name string
		in   error
		want error // sentinel expected in the chain; nil: none of ours
	}{
		{"no rows", pgx.ErrNoRows, ErrNotFound},
		{"unique violation", &pgconn.PgError{Code: "23505"}, ErrConflict},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, ErrUnavailable},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), ErrUnavailable},
		{"unexpected EOF", io.ErrUnexpectedEOF, ErrUnavailable},
		{"syntax error", &pgconn.PgError{Code: "42601"}, nil},
		{"context canceled", context.Canceled, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := interpretError("op", tt.in)
			if !errors.Is(got, tt.in) && tt.in != pgx.ErrNoRows {
				t.Errorf("%v: original error lost", got)
			}
			for _, s := range []error{ErrNotFound, ErrConflict, ErrUnavailable} {
				if errors.Is(got, s) != (s == tt.want) {
					t.Errorf("%v: errors.Is(%v) = %v", got, s, !(s == tt.want))
				}
			}
			if !strings.HasPrefix(got.Error(), "op: ") {
				t.Errorf("message %q does not name the operation", got)
			}
		})
	}
	if interpretError("op", nil) != nil {
		t.Error("nil error must stay nil")
	}
}

func TestMigrationsAreNumbered(t *testing.T) {
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.Version != i+1 || m.SQL == "" {
			t.Errorf("migration %d: version %d, %d bytes", i, m.Version, len(m.SQL))
		}
	}
	if ms[0].Name != "init" {
		t.Errorf("first migration %q, want init", ms[0].Name)
	}
}

func TestConfigRedacted(t *testing.T) {
	tests := []struct {
		in, want string
		secret   bool
	}{
		{"postgres://u:secret@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable", true},
		{"postgres://u@h/db", "postgres://u@h/db", false},
		{"postgres://u@h/db?password=secret&sslmode=disable", "postgres://u@h/db?password=xxxxx&sslmode=disable", true},
		{"postgresql://u@h/db?sslpassword=secret", "postgresql://u@h/db?sslpassword=xxxxx", true},
		{"host=h user=u password=secret dbname=db", "host=h user=u password=xxxxx dbname=db", true},
		{"host=h password='a secret with spaces' dbname=db", "host=h password=xxxxx dbname=db", true},
		{"host=h  password = secret dbname=db", "host=h  password=xxxxx dbname=db", true},
		{"host=h user=u dbname=db", "host=h user=u dbname=db", false},
		{"host=h passfile=/etc/pgpass dbname=db", "host=h passfile=/etc/pgpass dbname=db", false},
	}
	for _, tt := range tests {
		c := Config{URL: tt.in}
		if got := c.Redacted(); got != tt.want || strings.Contains(got, "secret") {
			t.Errorf("Redacted(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := c.HasPassword(); got != tt.secret {
			t.Errorf("HasPassword(%q) = %v, want %v", tt.in, got, tt.secret)
		}
	}
}
