package slurm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// signalFault says what the proxy in front of the recorded slurmrestd does
// with a DELETE (the checkpoint signal).
type signalFault int

const (
	passSignal      signalFault = iota // forward it, answer what slurmrestd answers
	deliverThen504                     // forward it (the job gets the signal), answer 504
	deliverThen502                     // forward it, answer 502
	refuseSignal                       // answer 500 with Slurm's errors[], forward nothing
	refuseForbidden                    // answer 403, forward nothing
)

// TestPreemptSignalsAtMostOnce (issue 23.5): a checkpoint signal goes out
// at most once per decision, whatever slurmrestd (or a proxy before it)
// answers; a signal that was delivered is signalled (the per-day cap counts
// it), and sig= stays only when the job may have got the signal: a refused
// one takes it back, so the job is not marked non-cooperative for it.
func TestPreemptSignalsAtMostOnce(t *testing.T) {
	tests := []struct {
		name      string
		fault     signalFault
		requeue   bool // the job's trap requeues it at once
		delivered int
		outcome   decide.Outcome
		detail    string // prefix of the result's detail
		sigKept   bool   // the last admin comment written has sig=
	}{
		{"answered OK", passSignal, true, 1, decide.Signalled, "sent SIGUSR1", true},
		{"delivered, proxy 504, job requeued", deliverThen504, true, 1, decide.Signalled, "delivered: the answer was", true},
		{"delivered, proxy 502, job still checkpointing", deliverThen502, false, 1, decide.Signalled, "delivery unconfirmed", true},
		{"refused by slurm", refuseSignal, false, 0, decide.Failed, "signal not delivered", false},
		{"refused 403", refuseForbidden, false, 0, decide.Failed, "signal not delivered", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := slurmtest.NewServer(t, "testdata")
			if tc.requeue {
				srv.RequeueOnSignal()
			}
			var deletes atomic.Int32
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodDelete {
					srv.Config.Handler.ServeHTTP(w, r)
					return
				}
				deletes.Add(1)
				switch tc.fault {
				case passSignal:
					srv.Config.Handler.ServeHTTP(w, r)
				case deliverThen504, deliverThen502:
					srv.Config.Handler.ServeHTTP(httptest.NewRecorder(), r)
					w.WriteHeader(map[signalFault]int{deliverThen504: http.StatusGatewayTimeout, deliverThen502: http.StatusBadGateway}[tc.fault])
				case refuseSignal:
					w.WriteHeader(http.StatusInternalServerError)
					_, _ = w.Write([]byte(`{"errors":[{"error_number":2017,"error":"Invalid job id specified"}]}`))
				case refuseForbidden:
					w.WriteHeader(http.StatusForbidden)
				}
			}))
			defer front.Close()
			c, err := slurm.New(context.Background(), slurm.Config{URL: front.URL, User: "root", Token: "t",
				Retries: 3, RetryBackoff: time.Millisecond, Timeout: 5 * time.Second}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			optedIn := func(planner.Job) (string, bool) { return "USR1", true }
			d := planner.Decision{JobID: 1, Action: planner.ActionPreempt, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 1}
			rep, err := c.Apply(context.Background(), []planner.Decision{d},
				slurm.ApplyOptions{Cycle: 9, Preemptible: optedIn, Now: time.Unix(1795313300, 0)})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Results[0]
			if deletes.Load() != 1 {
				t.Errorf("%d DELETEs sent, want 1 (a signal is never retried)", deletes.Load())
			}
			if got := len(srv.Signals()); got != tc.delivered {
				t.Errorf("%d signals delivered, want %d", got, tc.delivered)
			}
			if r.Outcome != tc.outcome || !strings.HasPrefix(r.Detail, tc.detail) {
				t.Errorf("outcome %s (%s), want %s (%s…)", r.Outcome, r.Detail, tc.outcome, tc.detail)
			}
			ws := srv.Writes()
			if len(ws) == 0 {
				t.Fatal("no admin comment written before the signal")
			}
			var last struct {
				AdminComment string `json:"admin_comment"`
			}
			if err := json.Unmarshal([]byte(ws[len(ws)-1].Body), &last); err != nil {
				t.Fatal(err)
			}
			w, _ := decide.ParseAdminComment(last.AdminComment)
			if diff := cmp.Diff(tc.sigKept, !w.Signalled.IsZero()); diff != "" {
				t.Errorf("sig= in the admin comment left %q (-want +got):\n%s", last.AdminComment, diff)
			}
		})
	}
}
