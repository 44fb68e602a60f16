package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
)

var versionInPath = regexp.MustCompile(`^/slurm/(v\d+\.\d+\.\d+)/`)

// servedVersions asks slurmrestd for its OpenAPI description and returns the
// slurmctld API versions it serves ("v0.0.40", ...), sorted. It also notes
// whether slurmrestd serves slurmdbd's endpoints (/slurmdb/...: slurmrestd
// runs with the openapi/slurmdbd plugin, so the cluster has accounting).
func (c *Client) servedVersions(ctx context.Context) ([]string, error) {
	url := strings.TrimRight(c.cfg.URL, "/") + "/openapi/v3"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("discover slurmrestd versions: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("discover slurmrestd versions: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("discover slurmrestd versions: %w", decodeAPIError(resp))
	}
	var doc struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, fmt.Errorf("discover slurmrestd versions: decode openapi description: %w", err)
	}
	c.accounting = servesSlurmdb(doc.Paths)
	return versionsFromPaths(doc.Paths), nil
}

func servesSlurmdb[V any](paths map[string]V) bool {
	for p := range paths {
		if strings.HasPrefix(p, "/slurmdb/") {
			return true
		}
	}
	return false
}

func versionsFromPaths[V any](paths map[string]V) []string {
	seen := map[string]bool{}
	for p := range paths {
		if m := versionInPath.FindStringSubmatch(p); m != nil {
			seen[m[1]] = true
		}
	}
	vs := make([]string, 0, len(seen))
	for v := range seen {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	return vs
}

// decodeAPIError turns a non-2xx answer into an *APIError, keeping
// slurmrestd's errors[] and warnings[] when the body has them.
func decodeAPIError(resp *http.Response) *APIError {
	e := &APIError{Status: resp.StatusCode}
	var env struct {
		Errors   []Problem `json:"errors"`
		Warnings []Problem `json:"warnings"`
	}
	if json.NewDecoder(resp.Body).Decode(&env) == nil {
		e.Errors, e.Warnings = env.Errors, env.Warnings
	}
	return e
}
