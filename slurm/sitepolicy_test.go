package slurm

import (
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
)

func answer(status int, body string) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body))}
}

func recording(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// GET /shares as Slurm 24.11's slurmrestd answers it on the accounting
// test cluster (testdata/shares.json) gives every user association's
// fairshare factor and the accounts; an answer that fails or cannot be
// Slurm's is refused, naming what is wrong, never read as "no usage".
func TestReadShares(t *testing.T) {
	rec := recording(t, "shares.json")
	user := `{"name":"alice","parent":"research","type":["USER"],"fairshare":{"factor":%s}}`
	list := func(shares ...string) string { return `{"shares":{"shares":[` + strings.Join(shares, ",") + `]}}` }
	for _, tc := range []struct {
		name     string
		resp     *http.Response
		want     map[assoc]float64
		accounts []string
		wantErr  string
	}{
		{"recorded", answer(200, rec), map[assoc]float64{
			{"root", "root"}: 1, {"research", "alice"}: 1, {"research", "bob"}: 1, {"research", "root"}: 1, {"research", "strata"}: 1,
		}, []string{"research", "root"}, ""},
		{"a heavy user", answer(200, list(`{"name":"research","parent":"root","type":["ASSOCIATION"]}`,
			strings.Replace(user, "%s", `{"set":true,"infinite":false,"number":0.25}`, 1))),
			map[assoc]float64{{"research", "alice"}: 0.25}, []string{"research"}, ""},
		{"no shares list", answer(200, `{"shares":{}}`), nil, nil, "no shares list"},
		{"null answer", answer(200, `null`), nil, nil, "no shares list"},
		{"a share without a name", answer(200, list(`{"type":["USER"]}`)), nil, nil, "share 0 has no name"},
		{"a user without a factor", answer(200, list(`{"name":"alice","parent":"research","type":["USER"]}`)), nil, nil,
			"user alice of account \"research\" has no fairshare factor"},
		{"an unset factor", answer(200, list(strings.Replace(user, "%s", `{"set":false,"infinite":false,"number":0}`, 1))), nil, nil,
			"has no fairshare factor"},
		{"a factor above 1", answer(200, list(strings.Replace(user, "%s", `{"set":true,"infinite":false,"number":1.5}`, 1))), nil, nil,
			"has no fairshare factor from 0 to 1"},
		{"not JSON", answer(200, `{"shares":`), nil, nil, "read /shares"},
		{"slurmctld fails", answer(500, `{"errors":[{"error":"Unable to query shares","error_number":1}]}`), nil, nil, "Unable to query shares"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readShares(tc.resp, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(tc.wantErr, "no ") && !errors.Is(err, ErrBadAnswer) {
					t.Errorf("err = %v, want ErrBadAnswer", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var accounts []string
			for a := range got.accounts {
				accounts = append(accounts, a)
			}
			if diff := cmp.Diff(tc.want, got.factor, cmp.AllowUnexported(assoc{})); diff != "" {
				t.Errorf("factors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.accounts, sortedStrings(accounts)); diff != "" {
				t.Errorf("accounts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadQOS(t *testing.T) {
	for _, tc := range []struct {
		name    string
		resp    *http.Response
		want    map[string]int64
		wantErr string
	}{
		{"recorded", answer(200, recording(t, "qos.json")), map[string]int64{"normal": 0, "high": 1000}, ""},
		{"no list", answer(200, `{}`), nil, "no qos list"},
		{"a QOS without a name", answer(200, `{"qos":[{"priority":{"set":true,"number":5}}]}`), nil, "QOS 0 has no name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readQOS(tc.resp, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrBadAnswer) {
					t.Fatalf("err = %v, want ErrBadAnswer containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Each pending job gets its association's fairshare factor, its QOS's
// priority over the largest and its partition's job factor over the
// largest; when the policy could not be read, or the job's association
// is not in /shares, it gets SiteUnread instead (running jobs neither),
// and a warning says how many jobs and why.
func TestApplySitePolicy(t *testing.T) {
	snap := func() *planner.Snapshot {
		return &planner.Snapshot{
			Partitions: []planner.Partition{{Name: "gpu", PriorityJobFactor: 10}, {Name: "low", PriorityJobFactor: 5}},
			Jobs: []planner.Job{
				{ID: 1, User: "alice", Account: "research", QOS: "high", Partition: "gpu", State: planner.JobPending},
				{ID: 2, User: "bob", Account: "research", QOS: "normal", Partition: "low", State: planner.JobPending},
				{ID: 3, User: "carol", Account: "other", QOS: "normal", Partition: "gpu", State: planner.JobPending},
				{ID: 4, User: "alice", Account: "research", QOS: "high", Partition: "gpu", State: planner.JobRunning},
			},
		}
	}
	read := sharesRead{factor: map[assoc]float64{{"research", "alice"}: 0.2, {"research", "bob"}: 0.9}}
	type got struct {
		Site   *planner.SiteFactors
		Unread string
	}
	for _, tc := range []struct {
		name    string
		p       *sitePolicy
		want    map[int64]got
		wantLog string
	}{
		{"read", &sitePolicy{shares: read, qos: map[string]int64{"normal": 0, "high": 1000}}, map[int64]got{
			1: {Site: &planner.SiteFactors{Fairshare: 0.2, QOS: 1, Partition: 1}},
			2: {Site: &planner.SiteFactors{Fairshare: 0.9, QOS: 0, Partition: 0.5}},
			3: {Unread: `/shares has no association of user carol in account "other"`},
			4: {},
		}, `"jobs":1,`},
		{"failed", &sitePolicy{err: errors.New("read /shares: 500")}, map[int64]got{
			1: {Unread: "read /shares: 500"}, 2: {Unread: "read /shares: 500"}, 3: {Unread: "read /shares: 500"}, 4: {},
		}, `"jobs":3,"error":"read /shares: 500"`},
		{"no accounting", nil, map[int64]got{1: {}, 2: {}, 3: {}, 4: {}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snap()
			var log strings.Builder
			(&Client{log: zerolog.New(&log)}).applySitePolicy(s, tc.p)
			if got := log.String(); tc.wantLog == "" && got != "" || tc.wantLog != "" && !strings.Contains(got, tc.wantLog) {
				t.Errorf("log %q, want it to contain %q", got, tc.wantLog)
			}
			out := map[int64]got{}
			for _, j := range s.Jobs {
				out[j.ID] = got{j.Site, j.SiteUnread}
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func sortedStrings(xs []string) []string {
	slices.Sort(xs)
	return xs
}
