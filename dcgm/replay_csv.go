package dcgm

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// csvColumns is the header of the CSV recording format, in order. pids are
// space-separated; time is RFC 3339 with optional fraction.
var csvColumns = []string{"time", "host", "uuid", "index", "minor", "bus_id", "util_gpu",
	"util_mem", "power_w", "energy_mj", "mem_used", "mem_total", "pids"}

// ReadCSV reads samples in the CSV recording format (header line required,
// columns as in WriteCSV; extra columns are ignored).
func ReadCSV(r io.Reader) ([]Sample, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read csv header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.ToLower(h))] = i
	}
	for _, c := range csvColumns[:3] {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("read csv: column %q missing", c)
		}
	}
	var out []Sample
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read csv: %w", err)
		}
		s, err := csvSample(rec, col)
		if err != nil {
			return nil, fmt.Errorf("read csv: line %d: %w", line, err)
		}
		out = append(out, s)
	}
}

func csvSample(rec []string, col map[string]int) (Sample, error) {
	get := func(name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var errs []error
	num := func(name string) float64 {
		v := get(name)
		if v == "" {
			return 0
		}
		f, err := strconv.ParseFloat(v, 64)
		errs = append(errs, err)
		return f
	}
	t, err := time.Parse(time.RFC3339Nano, get("time"))
	errs = append(errs, err)
	s := Sample{Time: t, Host: get("host"), UUID: get("uuid"), Index: int(num("index")),
		Minor: -1, BusID: get("bus_id"), UtilGPU: num("util_gpu"), UtilMem: num("util_mem"),
		PowerW: num("power_w"), Source: "replay"}
	if get("minor") != "" {
		s.Minor = int(num("minor"))
	}
	for name, dst := range map[string]*uint64{"energy_mj": &s.EnergyMJ, "mem_used": &s.MemUsed, "mem_total": &s.MemTotal} {
		if v := get(name); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			errs = append(errs, err)
			*dst = n
		}
	}
	for _, p := range strings.Fields(get("pids")) {
		n, err := strconv.ParseInt(p, 10, 32)
		errs = append(errs, err)
		s.PIDs = append(s.PIDs, int32(n))
	}
	if err := errors.Join(errs...); err != nil {
		return s, err
	}
	return s, s.Check()
}

// WriteCSV writes samples in the CSV recording format.
func WriteCSV(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvColumns); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	for _, s := range samples {
		pids := make([]string, len(s.PIDs))
		for i, p := range s.PIDs {
			pids[i] = strconv.Itoa(int(p))
		}
		rec := []string{s.Time.UTC().Format(time.RFC3339Nano), s.Host, s.UUID, strconv.Itoa(s.Index),
			strconv.Itoa(s.Minor), s.BusID, ftoa(s.UtilGPU), ftoa(s.UtilMem), ftoa(s.PowerW),
			strconv.FormatUint(s.EnergyMJ, 10), strconv.FormatUint(s.MemUsed, 10),
			strconv.FormatUint(s.MemTotal, 10), strings.Join(pids, " ")}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
