package sim

import (
	"math"
	"sort"
	"strings"
	"testing"
)

// TestReadTraceBadCSV (issue 34.5): a row the CSV reader cannot read (an
// unterminated or bare quote) is an error naming its line, or with
// SkipBad a skipped row; it panicked (FieldPos of a record never read).
func TestReadTraceBadCSV(t *testing.T) {
	const head = "job_id,submit_time,duration_s,gpus\n1,0,60,1\n"
	for _, tc := range []struct {
		name, rows string
		line       string
		skipped    int
	}{
		{"unterminated quote", "2,\"0,60,1\n", "line 3", 1},
		{"unterminated quote in the first field", "\"2,0,60,1\n", "line 3", 1},
		{"bare quote", "2,0\"x,60,1\n3,0,60,1\n", "line 3", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTrace(strings.NewReader(head+tc.rows), ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.line) || !strings.Contains(err.Error(), "--skip-bad") {
				t.Errorf("err = %v, want an error naming %s and --skip-bad", err, tc.line)
			}
			tr, err := ReadTrace(strings.NewReader(head+tc.rows), ReadOptions{SkipBad: true})
			if err != nil || tr.Skipped != tc.skipped || len(tr.Jobs) == 0 || tr.Jobs[0].ID != "1" {
				t.Errorf("SkipBad: %+v, %v; want job 1 read and %d row skipped", tr, err, tc.skipped)
			}
		})
	}
}

// FuzzReadTrace: no input makes ReadTrace panic; what it accepts is a
// trace the simulator can run (GPU jobs with finite, bounded times, sorted
// by submit time), and with SkipBad only a bad header is an error.
func FuzzReadTrace(f *testing.F) {
	for _, s := range []string{
		"job_id,submit_time,duration_s,gpus\n1,0,60,1\n2,5,30,0\n",
		"job_id,submit_time,duration_s,gpus,model,batch_size,nodes,user,time_limit_s,deadline_s,gpu_milli,hint\n1,0,60,2,resnet50,64,1,alice,120,300,500,\"model=bert gpus=1-4\"\n",
		"job_id,submit_time,duration_s,gpus\n1,\"0,60,1\n",
		"\ufeffJOB_ID,Submit_Time,duration_s,gpus,bb_bytes,bb_in_bytes,bb_out_bytes,memory_mib,cpus,iterations\n7,1e3,1e2,4,1e9,5e8,0,1024,8,100\n",
		"job_id,submit_time,duration_s,gpus\n1,NaN,Inf,-1\n",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, skip bool) {
		tr, err := ReadTrace(strings.NewReader(in), ReadOptions{SkipBad: skip})
		if err != nil {
			if skip && !strings.Contains(err.Error(), "header") {
				t.Fatalf("SkipBad refused more than the header: %v", err)
			}
			return
		}
		for _, j := range tr.Jobs {
			if j.GPUs < 1 || !finite(j.Submit, j.Duration, j.TimeLimit, j.Deadline) ||
				j.Submit < 0 || j.Submit > maxTraceSeconds || j.Duration > maxTraceSeconds {
				t.Fatalf("accepted job %+v", j)
			}
		}
		if !sort.SliceIsSorted(tr.Jobs, func(a, b int) bool { return tr.Jobs[a].Submit < tr.Jobs[b].Submit }) {
			t.Fatalf("jobs not sorted by submit time")
		}
	})
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
