package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
)

// grafanaSQL turns a panel's SQL into what Grafana's PostgreSQL data
// source sends: the time macros over [from, to), and every multi-value
// variable at "All" (each value of its column, quoted).
func grafanaSQL(q string, from, to time.Time) string {
	ts := func(t time.Time) string { return "'" + t.UTC().Format(time.RFC3339) + "'" }
	q = regexp.MustCompile(`\$__timeFilter\((\w+)\)`).ReplaceAllString(q, "$1 BETWEEN "+ts(from)+" AND "+ts(to))
	q = regexp.MustCompile(`\$__timeGroupAlias\((\w+), '1h'\)`).ReplaceAllString(q, `date_trunc('hour', $1) AS "time"`)
	for v, col := range map[string]string{"user": "user_name", "account": "account", "partition": "partition", "node": "host"} {
		q = strings.ReplaceAll(q, "${"+v+":sqlstring}", "SELECT DISTINCT "+col+" FROM energy_hour")
	}
	return q
}

// TestEnergyDashboard (issue 26.6) validates the shipped Grafana energy
// dashboard against a real database holding the demo recording: every
// panel's query and every variable's query runs as Grafana would send it
// and answers rows, and the per-user table gives the numbers `strata
// report energy --by user` gives.
func TestEnergyDashboard(t *testing.T) {
	s, _, u := demoDatabase(t)
	ctx := context.Background()
	b, err := os.ReadFile(filepath.Join("..", "packaging", "monitoring", "strata-energy-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID        string `json:"uid"`
		Templating struct {
			List []struct {
				Name, Type string
				Query      any `json:"query"`
			} `json:"list"`
		} `json:"templating"`
		Panels []struct {
			Title, Type string
			Datasource  struct{ Type string } `json:"datasource"`
			Targets     []struct {
				RawSQL string `json:"rawSql"`
				Format string `json:"format"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	from, to := demoT0.Add(-time.Hour), demoT0.Add(time.Hour)
	run := func(name, sql string) [][]any {
		t.Helper()
		rows, err := conn.Query(ctx, grafanaSQL(sql, from, to))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return nil
		}
		out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if len(out) == 0 {
			t.Errorf("%s: no rows for the demo recording", name)
		}
		return out
	}
	queries := 0
	for _, v := range dash.Templating.List {
		if q, ok := v.Query.(string); ok && v.Type == "query" {
			run("variable "+v.Name, q)
			queries++
		}
	}
	var byUser [][]any
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if p.Datasource.Type != "grafana-postgresql-datasource" {
			t.Errorf("panel %q: data source %q, want grafana-postgresql-datasource", p.Title, p.Datasource.Type)
		}
		for _, tg := range p.Targets {
			rows := run("panel "+p.Title, tg.RawSQL)
			queries++
			if p.Title == "By user" {
				byUser = rows
			}
		}
	}
	if queries < 15 {
		t.Errorf("only %d queries found in the dashboard", queries)
	}
	rep, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: db.ReportFilter{From: from, To: to}, By: []db.ReportDim{db.DimUser}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, r := range rep {
		want[r.User] = r.EnergyJ / 3.6e6
	}
	got := map[string]float64{}
	for _, r := range byUser {
		kwh, _ := r[3].(float64)
		got[fmt.Sprint(r[0])] = kwh
	}
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("by user: dashboard %v, report %v", got, want)
	}
	for u, w := range want {
		if math.Abs(got[u]-w) > 1e-9*math.Max(1, w) {
			t.Errorf("user %s: dashboard %.6f kWh, report %.6f kWh", u, got[u], w)
		}
	}
}
