package dcgm_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/dcgm/dcgmtest"
)

// The checked-in demo recording must be exactly what the generator makes
// (regenerate with: go run ./dcgm/dcgmtest/genrecording -out dcgm/testdata).
func TestDemoRecordingIsGenerated(t *testing.T) {
	rec, err := dcgmtest.Generate(dcgmtest.Demo())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := dcgm.WriteJSONL(&want, rec.Samples); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("testdata/recording.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want.Bytes(), got) {
		t.Error("testdata/recording.jsonl differs from dcgmtest.Demo(); regenerate it")
	}
	want.Reset()
	if err := dcgm.WriteJSONL(&want, dcgmtest.Stalled(rec.Samples)); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("testdata/recording-stalled.jsonl"); err != nil || !bytes.Equal(want.Bytes(), got) {
		t.Errorf("testdata/recording-stalled.jsonl differs from dcgmtest.Stalled (%v); regenerate it", err)
	}
	sched, err := dcgm.ReadSchedule("testdata/schedule.json")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rec.Schedule, sched); d != "" {
		t.Errorf("schedule.json (-generated +file):\n%s", d)
	}
}

func TestReplayJSONLAndCSVAgree(t *testing.T) {
	ctx := context.Background()
	a, err := dcgm.OpenReplay("testdata/recording.jsonl", dcgm.ReplayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := dcgm.OpenReplay("testdata/recording.csv", dcgm.ReplayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	sweeps := 0
	for {
		sa, errA := a.Snapshot(ctx)
		sb, errB := b.Snapshot(ctx)
		if errors.Is(errA, io.EOF) && errors.Is(errB, io.EOF) {
			break
		}
		if errA != nil || errB != nil {
			t.Fatalf("snapshot: %v / %v", errA, errB)
		}
		if d := cmp.Diff(sa, sb); d != "" {
			t.Fatalf("sweep %d (-jsonl +csv):\n%s", sweeps, d)
		}
		if len(sa) != 8 {
			t.Fatalf("sweep %d has %d samples, want 8 (2 nodes × 4 GPUs)", sweeps, len(sa))
		}
		sweeps++
	}
	if sweeps != 37 {
		t.Errorf("sweeps = %d, want 37 (6 min at 10 s, both ends)", sweeps)
	}
}

func TestReplayTimeScaling(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	samples := []dcgm.Sample{{Time: t0.Add(2 * time.Second), UUID: "b"}, {Time: t0, UUID: "a"}}
	r := dcgm.NewReplaySource(samples, dcgm.ReplayConfig{Speed: 20, Shift: time.Hour})
	ctx := context.Background()
	start := time.Now()
	first, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if elapsed < 100*time.Millisecond { // 2 s recorded / speed 20; a lower bound only
		t.Errorf("second sweep served after %v, want ≥ 100ms", elapsed)
	}
	want := [][]dcgm.Sample{
		{{Time: t0.Add(time.Hour), UUID: "a", Source: "replay"}},
		{{Time: t0.Add(time.Hour + 2*time.Second), UUID: "b", Source: "replay"}},
	}
	if d := cmp.Diff(want, [][]dcgm.Sample{first, second}); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := r.Snapshot(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("after the last sweep: err = %v, want io.EOF", err)
	}
}

func TestSchedule(t *testing.T) {
	sched, err := dcgm.ReadSchedule("testdata/schedule.json")
	if err != nil {
		t.Fatal(err)
	}
	t0 := dcgmtest.Demo().Start
	got := sched.Active(t0.Add(240 * time.Second)) // 101 has just ended, 102 and 103 run
	want := []dcgm.SlurmAlloc{{Job: 102, Node: "gpu-a", Indices: []int{2, 3}}, {Job: 103, Node: "gpu-b", Indices: []int{0, 1}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestStubsSayHowToRebuild(t *testing.T) {
	tests := []struct {
		name string
		open func() error
		want string
	}{
		{"dcgm", func() error { _, err := dcgm.NewDCGMSource(dcgm.DCGMConfig{}); return err },
			"built without DCGM support (rebuild with -tags dcgm)"},
		{"nvml", func() error { _, err := dcgm.NewNVMLSource(dcgm.NVMLConfig{}); return err },
			"built without NVML support (rebuild with -tags nvml)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.open()
			if !errors.Is(err, dcgm.ErrNotBuilt) {
				// Built with the tag: without the library it must say so.
				if !errors.Is(err, dcgm.ErrUnavailable) && err != nil {
					t.Errorf("tagged build without GPU library: err = %v, want ErrUnavailable", err)
				}
				return
			}
			if !bytes.Contains([]byte(err.Error()), []byte(tt.want)) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestReplayShiftKeepsSweeps: a shifted replay serves the same sweeps (all
// GPUs of one recorded instant together) as an unshifted one.
func TestReplayShiftKeepsSweeps(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var samples []dcgm.Sample
	for k := 0; k < 3; k++ {
		for _, u := range []string{"a", "b", "c"} {
			samples = append(samples, dcgm.Sample{Time: t0.Add(time.Duration(k) * 10 * time.Second), UUID: u})
		}
	}
	for _, shift := range []time.Duration{0, 36*time.Hour + 7*time.Second} {
		r := dcgm.NewReplaySource(samples, dcgm.ReplayConfig{Shift: shift})
		var sizes []int
		for {
			sw, err := r.Snapshot(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, len(sw))
			for _, s := range sw {
				if !s.Time.Equal(sw[0].Time) {
					t.Errorf("shift %v: sweep mixes times %v and %v", shift, sw[0].Time, s.Time)
				}
			}
		}
		if d := cmp.Diff([]int{3, 3, 3}, sizes); d != "" {
			t.Errorf("shift %v: sweep sizes (-want +got):\n%s", shift, d)
		}
	}
}

// A recording row with NaN power or no UUID is an error naming the line.
func TestReadCSVRefusesBadRows(t *testing.T) {
	head := "time,host,uuid,index,minor,bus_id,util_gpu,util_mem,power_w,energy_mj,mem_used,mem_total,pids\n"
	good := "2026-11-24T12:00:00Z,n1,GPU-a,0,0,,50,10,200,1000,1,2,\n"
	for name, row := range map[string]string{
		"NaN power":      "2026-11-24T12:00:01Z,n1,GPU-a,0,0,,50,10,NaN,1000,1,2,\n",
		"empty uuid":     "2026-11-24T12:00:01Z,n1,,0,0,,50,10,200,1000,1,2,\n",
		"util over 100":  "2026-11-24T12:00:01Z,n1,GPU-a,0,0,,150,10,200,1000,1,2,\n",
		"negative power": "2026-11-24T12:00:01Z,n1,GPU-a,0,0,,50,10,-5,1000,1,2,\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := dcgm.ReadCSV(strings.NewReader(head + good + row))
			if err == nil || !strings.Contains(err.Error(), "line 3") {
				t.Errorf("err = %v, want an error naming line 3", err)
			}
		})
	}
	if _, err := dcgm.ReadCSV(strings.NewReader(head + good)); err != nil {
		t.Errorf("a good recording: %v", err)
	}
}
