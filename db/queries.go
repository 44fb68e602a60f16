package db

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed queries/*.sql
var queryFS embed.FS

// queries maps a query name (the "-- name: X" line above it) to its SQL.
type queries map[string]string

// loadQueries parses every embedded queries/*.sql file.
func loadQueries() (queries, error) {
	files, err := fs.Glob(queryFS, "queries/*.sql")
	if err != nil {
		return nil, fmt.Errorf("load queries: %w", err)
	}
	sort.Strings(files)
	q := queries{}
	for _, f := range files {
		b, err := queryFS.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("load queries: %w", err)
		}
		if err := q.parse(f, string(b)); err != nil {
			return nil, err
		}
	}
	return q, nil
}

func (q queries) parse(file, text string) error {
	var name string
	var body strings.Builder
	flush := func() error {
		if name == "" {
			return nil
		}
		if _, dup := q[name]; dup {
			return fmt.Errorf("load queries: %s: duplicate query %q", file, name)
		}
		q[name] = strings.TrimSpace(body.String())
		body.Reset()
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "-- name:"); ok {
			if err := flush(); err != nil {
				return err
			}
			name = strings.TrimSpace(rest)
			continue
		}
		if name != "" {
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	return flush()
}

// get returns a query by name; a missing name is a programming error caught
// by the tests, reported as an error rather than a panic.
func (q queries) get(name string) (string, error) {
	s, ok := q[name]
	if !ok {
		return "", fmt.Errorf("query %q not found in db/queries", name)
	}
	return s, nil
}
