package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

// TestViewsByPartitionNodeDay (issue 17): /by/partition, /by/node and
// /by/day show what `strata report energy --by DIM` prints for the same
// window and filters, are linked from the overview with its window and
// filters, and partitions and days link to the overview narrowed to them.
func TestViewsByPartitionNodeDay(t *testing.T) {
	src := reporttest.Demo()
	srv := newTestWeb(t, src, nil)
	const window = "start=2026-11-20T22%3A00&end=2026-11-21T03%3A00"
	_, _, page := get(t, srv.URL+"/?"+window+"&user=alice")
	for _, want := range []string{
		`<a href="/by/partition?end=2026-11-21T03%3A00&amp;start=2026-11-20T22%3A00&amp;user=alice">By partition</a>`,
		`<a href="/by/node?end=2026-11-21T03%3A00&amp;start=2026-11-20T22%3A00&amp;user=alice">By node</a>`,
		`<a href="/by/day?end=2026-11-21T03%3A00&amp;start=2026-11-20T22%3A00&amp;user=alice">By day</a>`,
		`<strong aria-current="page">Overview</strong>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("overview lacks the view link %s", want)
		}
	}
	figures := "Jobs,GPUHours,Energy,EnergyRaw,MeanUtil,IdleEnergy,IdlePct"
	for _, tc := range []struct {
		dim   db.ReportDim
		field string
		links []string
	}{
		{db.DimPartition, "Partition", []string{`<a href="/?end=2026-11-21T03%3A00&amp;partition=gpu&amp;start=2026-11-20T22%3A00&amp;user=alice">gpu</a>`}},
		{db.DimNode, "Node", nil},
		{db.DimDay, "Day", []string{`<a href="/?end=2026-11-22&amp;start=2026-11-21&amp;user=alice">2026-11-21</a>`,
			`<script type="application/json" id="chart-data" data-kind="overview">{"step":"day"`}},
	} {
		code, _, page := get(t, srv.URL+"/by/"+string(tc.dim)+"?"+window+"&user=alice")
		if code != http.StatusOK {
			t.Fatalf("GET /by/%s = %d: %.500s", tc.dim, code, page)
		}
		last := src.Queries()[len(src.Queries())-1].(db.EnergyQuery)
		if d := cmp.Diff([]db.ReportDim{tc.dim}, last.By); d != "" || len(last.Users) != 1 {
			t.Errorf("/by/%s asked %+v", tc.dim, last)
		}
		q := demoQuery([]db.ReportDim{tc.dim}, report.OutputMode{Parsable: true, NoHeader: true, Format: tc.field + "," + figures})
		want := cli(t, src, "energy", q)
		if d := cmp.Diff(want, tableRows(t, page, "view")); d != "" || want == "" {
			t.Errorf("/by/%s table vs strata report energy --by %s (-cli +page):\n%s", tc.dim, tc.dim, d)
		}
		for _, l := range append(tc.links, `<strong aria-current="page">`, `href="/api/energy?by=`+string(tc.dim)+`&amp;end=`,
			`<input type="hidden" name="user" value="alice">`) {
			if !strings.Contains(page, l) {
				t.Errorf("/by/%s lacks %s", tc.dim, l)
			}
		}
	}
	if code, _, _ := get(t, srv.URL+"/by/gpu"); code != http.StatusNotFound {
		t.Errorf("GET /by/gpu = %d, want 404", code)
	}
	// Rows without host names say why there is nothing to split by.
	noHosts := &reporttest.Source{Energy: map[string][]db.EnergyRow{"node": {{Jobs: 1, GPUSeconds: 3600, EnergyJ: 1e6}}}}
	_, _, page = get(t, newTestWeb(t, noHosts, nil).URL+"/by/node")
	if !strings.Contains(page, `id="note">The samples in this window carry no host names`) {
		t.Errorf("node view of host-less data lacks the note:\n%.1500s", page)
	}
}

// TestSearchBox (issue 17): a job ID opens the job page, anything else the
// overview filtered on that user, keeping the window; every page has the box.
func TestSearchBox(t *testing.T) {
	srv := newTestWeb(t, reporttest.Demo(), nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct{ query, want string }{
		{"q=13", "/job/13"},
		{"q=+job+13+", "/job/13"},
		{"q=alice&start=2026-11-20T22%3A00&end=now", "/?end=now&start=2026-11-20T22%3A00&user=alice"},
		{"q=bob", "/?user=bob"},
		{"q=", "/"},
	} {
		resp, err := client.Get(srv.URL + "/search?" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != tc.want {
			t.Errorf("/search?%s = %d → %q, want 303 → %q", tc.query, resp.StatusCode, resp.Header.Get("Location"), tc.want)
		}
	}
	for _, path := range []string{"/", "/job/13", "/by/day"} {
		_, _, page := get(t, srv.URL+path)
		if !strings.Contains(page, `<form method="get" action="/search" role="search"`) {
			t.Errorf("%s has no search box", path)
		}
	}
	_, _, page := get(t, srv.URL+"/?start=2026-11-20T22:00&end=now")
	if !strings.Contains(page, `<input type="hidden" name="start" value="2026-11-20T22:00"><input type="hidden" name="end" value="now"><button type="submit">Go</button>`) {
		t.Errorf("the overview's search box does not keep its window")
	}
}
