// Command genrecording writes the demo recording of dcgmtest.Demo to
// dcgm/testdata: recording.jsonl, recording.csv (the same samples),
// schedule.json (the jobs, their GPUs and their known energy) and
// recording-stalled.jsonl (dcgmtest.Stalled: job 102 stalls on input).
//
//	go run ./dcgm/dcgmtest/genrecording -out dcgm/testdata
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/dcgm/dcgmtest"
)

func main() {
	out := flag.String("out", "dcgm/testdata", "output directory")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "genrecording:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	rec, err := dcgmtest.Generate(dcgmtest.Demo())
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "recording.jsonl"), func(f *os.File) error {
		return dcgm.WriteJSONL(f, rec.Samples)
	}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "recording.csv"), func(f *os.File) error {
		return dcgm.WriteCSV(f, rec.Samples)
	}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "recording-stalled.jsonl"), func(f *os.File) error {
		return dcgm.WriteJSONL(f, dcgmtest.Stalled(rec.Samples))
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "schedule.json"), func(f *os.File) error {
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		return enc.Encode(rec.Schedule)
	})
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
