package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// installedCollectEnv is /etc/default/strata-collect as docs/operations.md
// (step 5 of "From the .deb") writes it; the packaged file must say the
// same.
func installedCollectEnv(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`printf '%s\\n' ([^>]*?) > /etc/default/strata-collect`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/operations.md writes no /etc/default/strata-collect")
	}
	fromDoc := map[string]string{}
	for _, w := range strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " ")) {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			t.Fatalf("docs/operations.md step 5: %q is not KEY=VALUE", w)
		}
		fromDoc[k] = v
	}
	f, err := os.Open(filepath.Join("..", "..", "packaging", "default", "strata-collect"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	packaged := map[string]string{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			k, v, _ := strings.Cut(l, "=")
			packaged[k] = v
		}
	}
	if d := cmp.Diff(fromDoc, packaged); d != "" {
		t.Errorf("packaging/default/strata-collect differs from docs/operations.md step 5 (-doc +packaged):\n%s", d)
	}
	return fromDoc
}

// collectUnitArgs is the command line of strata-collect.service after
// /usr/bin/strata, with the unit's Environment= defaults and env expanded.
func collectUnitArgs(t *testing.T, env map[string]string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "packaging", "systemd", "strata-collect.service"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	var exec string
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Environment="); ok {
			k, val, _ := strings.Cut(v, "=")
			vars[k] = val
		}
		if v, ok := strings.CutPrefix(l, "ExecStart=/usr/bin/strata "); ok {
			exec = v
		}
	}
	for k, v := range env { // EnvironmentFile= comes after Environment=
		vars[k] = v
	}
	if exec == "" {
		t.Fatal("strata-collect.service has no ExecStart=/usr/bin/strata")
	}
	return strings.Fields(os.Expand(exec, func(k string) string { return vars[k] }))
}

// unsetenv removes k from the environment for the test (an empty value
// would still count as set).
func unsetenv(t *testing.T, k string) {
	t.Helper()
	t.Setenv(k, "") // restores the old value after the test
	os.Unsetenv(k)
}

// exporterPages serves dcgm-exporter pages for the test cluster's nodes
// (Hostname = the Slurm node name, device nvidiaN = minor N), each GPU's
// energy counter rising 300 J per scrape at 100 % utilization.
func exporterPages(nodes []string, gpus int) http.HandlerFunc {
	var scrapes atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		n := scrapes.Add(1)
		metric := func(name, typ string, val func(node string, gpu int) string) {
			fmt.Fprintf(w, "# HELP %s x\n# TYPE %s %s\n", name, name, typ)
			for ni, node := range nodes {
				for g := range gpus {
					fmt.Fprintf(w, "%s{gpu=\"%d\",UUID=\"GPU-test-%d-%d\",device=\"nvidia%d\",modelName=\"NVIDIA T4\",Hostname=\"%s\"} %s\n",
						name, g, ni, g, g, node, val(node, g))
				}
			}
		}
		metric("DCGM_FI_DEV_POWER_USAGE", "gauge", func(string, int) string { return "300.0" })
		metric("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", func(string, int) string { return strconv.FormatInt(1e9+n*300000, 10) })
		metric("DCGM_FI_DEV_GPU_UTIL", "gauge", func(string, int) string { return "100" })
	}
}

// TestCollectAsInstalled runs the collector configured exactly as the
// documented install (docs/operations.md step 5, the packaged
// /etc/default/strata-collect and strata-collect.service's command line)
// against stand-in exporters for the test cluster's nodes and its real
// slurmrestd: a running job's energy is attributed to it (issue 26.9; the
// step's old two lines gave GPU samples but no job). Deviations from the
// install, for a test: the sampling interval (the unit's 10 s), the spool
// in a temporary directory, no /metrics listener, the URLs of the test bed.
func TestCollectAsInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Slurm test cluster, Postgres)")
	}
	env := installedCollectEnv(t)
	if env["STRATA_SLURM_MAPPING"] != "true" && env["STRATA_MAPPING_DIR"] == "" {
		t.Errorf("the documented collector has no GPU→job mapping: %v", env)
	}
	cl := slurmtest.Connect(t)
	srv := httptest.NewServer(exporterPages([]string{"node1", "node2"}, 4))
	defer srv.Close()
	env["STRATA_EXPORTER_URL"] = srv.URL + "/metrics"
	env["STRATA_COLLECT_INTERVAL"] = "300ms"

	// /etc/strata/strata.toml as step 3 writes it: [slurm] and [database].
	dir := t.TempDir()
	jwt := filepath.Join(dir, "slurm.jwt")
	if err := os.WriteFile(jwt, []byte(string(cl.Config.Token)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := dbtest.URL(t)
	cfg := filepath.Join(dir, "strata.toml")
	toml := fmt.Sprintf("[slurm]\nurl        = %q\nuser       = %q\ntoken-file = %q\n\n[database]\nurl = %q\n",
		cl.Config.URL, cl.Config.User, jwt, url)
	if err := os.WriteFile(cfg, []byte(toml), 0o640); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"SLURM_REST_URL", "SLURM_USER_NAME", "SLURM_JWT", "STRATA_DATABASE_URL", "STRATA_MAPPING_DIR"} {
		unsetenv(t, k) // only the file and the env file count
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	if out, err := runStrataDB(t, "--config", cfg, "db", "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}

	id := cl.Sbatch(t, "--gres=gpu:2", "-J", "energy-as-installed", "--wrap=sleep 60")
	t.Cleanup(func() { cl.Exec("scancel", strconv.FormatInt(id, 10)) })
	cl.WaitState(t, id, "RUNNING", 180*time.Second)

	args := collectUnitArgs(t, env)
	for i, a := range args {
		switch {
		case a == "/etc/strata/strata.toml":
			args[i] = cfg
		case strings.HasPrefix(a, "/var/lib/strata/"):
			args[i] = filepath.Join(dir, filepath.Base(a))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	var out strings.Builder
	if err := newApp(&out, &out).RunContext(ctx, append([]string{"strata", "--log-level", "warn"},
		append(args, "--metrics-listen", "")...)); err != nil {
		t.Fatalf("strata %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}

	rep := runStrataOut(t, "--config", cfg, "report", "energy", "--by", "job", "-S", "now-1hour", "-P", "--noheader",
		"--format", "JobID,JobName,EnergyRaw")
	var found bool
	for _, l := range strings.Split(strings.TrimSpace(rep), "\n") {
		f := strings.Split(l, "|")
		if len(f) == 3 && f[0] == strconv.FormatInt(id, 10) {
			found = true
			if e, err := strconv.ParseFloat(f[2], 64); err != nil || e <= 0 {
				t.Errorf("job %d's energy %q, want > 0", id, f[2])
			}
		}
	}
	if !found {
		t.Errorf("no energy attributed to job %d; report:\n%s\ncollector:\n%s", id, rep, out.String())
	}
}
