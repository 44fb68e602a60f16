package history

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// Python: difflib.SequenceMatcher(None, a, b).ratio()
func TestRatioMatchesDifflib(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"abcd", "bcde", 0.75},
		{"resnet50-train", "resnet50-eval", 0.7407407407407407},
		{"job-a", "job-b", 0.8},
		{"", "", 1},
		{"abc", "", 0},
		{"train_bert_large_lr3e-4", "train_bert_large_lr1e-4", 0.9565217391304348},
		{"qwerty", "ytrewq", 0.16666666666666666},
	}
	for _, tt := range tests {
		if got := ratio(tt.a, tt.b); got < tt.want-1e-12 || got > tt.want+1e-12 {
			t.Errorf("ratio(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestEstimateFollowsHelios(t *testing.T) {
	min := func(m int) time.Duration { return time.Duration(m) * time.Minute }
	e := New()
	for _, r := range []Record{
		{User: "alice", Name: "resnet50-train", GPUs: 4, Duration: min(100)},
		{User: "alice", Name: "resnet50-train", GPUs: 8, Duration: min(60)},
		{User: "bob", Name: "resnet50-train", GPUs: 4, Duration: min(300)},
		{User: "bob", Name: "bert-finetune", GPUs: 1, Duration: min(20)},
		{User: "carol", Name: "x", GPUs: 1, Duration: 0}, // never ran: ignored
	} {
		e.Add(r)
	}
	tests := []struct {
		user, name string
		gpus       int
		want       time.Duration
		match      Match
	}{
		{"alice", "resnet50-train", 4, min(100), MatchName},  // own jobs, same GPU count
		{"alice", "resnet50-train", 2, min(80), MatchName},   // own jobs, any count
		{"carol", "resnet50-train", 4, min(200), MatchName},  // no own jobs: everyone's, same count
		{"alice", "resnet50-train2", 8, min(60), MatchName},  // similar name
		{"bob", "something-else", 1, min(160), MatchUser},    // no name: the user's mean
		{"dave", "something-else", 1, min(120), MatchGlobal}, // new user: everyone's mean
	}
	for _, tt := range tests {
		d, m := e.Estimate(tt.user, tt.name, tt.gpus, 0)
		if d != tt.want || m != tt.match {
			t.Errorf("Estimate(%s, %s, %d) = %v %s, want %v %s", tt.user, tt.name, tt.gpus, d, m, tt.want, tt.match)
		}
	}
	if d, m := New().Estimate("a", "b", 1, 0); d != 0 || m != MatchNone {
		t.Errorf("empty history: %v %s", d, m)
	}
	p := e.Predictor()
	got, ok := p.Predict(&planner.Job{User: "alice", Name: "resnet50-train", GPUsPerNode: 4, Nodes: 1}, 8)
	if diff := cmp.Diff(min(50), got); !ok || diff != "" {
		t.Errorf("Predictor at 8 of 4 requested GPUs: %v %v", got, ok)
	}
}

// BenchmarkEstimate: one prediction against a history of 10,000 jobs with
// 2,000 distinct names (a name never seen: the full similarity scan).
func BenchmarkEstimate(b *testing.B) {
	e := New()
	for i := range 10000 {
		e.Add(Record{User: "u" + string(rune('a'+i%20)), Name: "job-" + itoa(i%2000) + "-train", GPUs: 1 + i%8, Duration: time.Minute})
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e.similar = map[string][]cand{} // measure the scan, not the cache
		e.Estimate("ua", "job-new-"+itoa(i)+"-train", 4, 0)
		i++
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestCacheFollowsAdds: names added after a lookup join the cached similar
// names exactly as a fresh scan would find them.
func TestCacheFollowsAdds(t *testing.T) {
	names := []string{"bert-large-a", "bert-large-b", "resnet-x", "bert-large-c", "bert-base", "bert-large-aa"}
	warm := New()
	for i, n := range names {
		if i == 2 {
			warm.Estimate("u", "bert-large-z", 1, 0) // cache the lookup part way
		}
		warm.Add(Record{User: "u", Name: n, GPUs: 1, Duration: time.Duration(i+1) * time.Minute})
	}
	cold := New()
	for i, n := range names {
		cold.Add(Record{User: "u", Name: n, GPUs: 1, Duration: time.Duration(i+1) * time.Minute})
	}
	if w, c := warm.similarNames("bert-large-z"), cold.similarNames("bert-large-z"); !slices.Equal(w, c) {
		t.Errorf("cached lookup %v, fresh scan %v", w, c)
	}
}

// TestEstimatorConcurrentLookups: lookups fill the similar-name cache; the
// daemon plans islands concurrently, so they run at once (make test runs
// this with -race).
func TestEstimatorConcurrentLookups(t *testing.T) {
	e := New()
	for i := range 50 {
		e.Add(Record{User: "u", Name: fmt.Sprintf("bert-large-%d", i), GPUs: 1, Duration: time.Duration(i+1) * time.Minute})
	}
	want, _ := e.Estimate("u", "bert-large-x", 1, 0)
	e = New()
	for i := range 50 {
		e.Add(Record{User: "u", Name: fmt.Sprintf("bert-large-%d", i), GPUs: 1, Duration: time.Duration(i+1) * time.Minute})
	}
	var wg sync.WaitGroup
	got := make([]time.Duration, 8)
	for k := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got[k], _ = e.Estimate("u", "bert-large-x", 1, 0)
			}
		}()
	}
	wg.Wait()
	for k, d := range got {
		if d != want {
			t.Errorf("lookup %d: %v, want %v", k, d, want)
		}
	}
}
