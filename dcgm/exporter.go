package dcgm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ExporterSource scrapes one or more dcgm-exporter /metrics endpoints.
// It understands the ≤ 4.8 field names and units and the renamed 4.9+ ones.
type ExporterSource struct {
	targets []string
	client  *http.Client

	mu   sync.Mutex
	jobs []JobGPU // hpc_job labels of the last scrape
}

// NewExporterSource returns a source scraping targets (full URLs such as
// http://node1:9400/metrics, or host:port, to which /metrics is added).
// A nil client means one with a 10 s timeout.
func NewExporterSource(targets []string, client *http.Client) (*ExporterSource, error) {
	if len(targets) == 0 {
		return nil, errors.New("exporter source: no targets")
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	norm := make([]string, len(targets))
	for i, t := range targets {
		if !strings.Contains(t, "://") {
			t = "http://" + t
		}
		u, err := url.Parse(t)
		if err != nil {
			return nil, fmt.Errorf("exporter source: target %q: %w", t, err)
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = "/metrics"
		}
		norm[i] = u.String()
	}
	return &ExporterSource{targets: norm, client: client}, nil
}

// Snapshot scrapes every target concurrently. Samples of the targets that
// answered are returned, sorted by host and UUID, together with an error
// joining the failures of the others (nil when all answered).
func (s *ExporterSource) Snapshot(ctx context.Context) ([]Sample, error) {
	type result struct {
		samples []Sample
		jobs    []JobGPU
		err     error
	}
	res := make([]result, len(s.targets))
	var wg sync.WaitGroup
	for i, t := range s.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i].samples, res[i].jobs, res[i].err = s.scrape(ctx, t)
		}()
	}
	wg.Wait()
	var out []Sample
	var jobs []JobGPU
	var errs []error
	for _, r := range res {
		out = append(out, r.samples...)
		jobs = append(jobs, r.jobs...)
		errs = append(errs, r.err)
	}
	sortSamples(out)
	s.mu.Lock()
	s.jobs = jobs
	s.mu.Unlock()
	return out, errors.Join(errs...)
}

// Jobs returns the GPU→job mapping carried by the hpc_job labels of the
// last scrape (empty unless the exporter runs with --hpc-job-mapping-dir).
func (s *ExporterSource) Jobs() []JobGPU {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]JobGPU(nil), s.jobs...)
}

func (s *ExporterSource) scrape(ctx context.Context, target string) ([]Sample, []JobGPU, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("scrape %s: %w", target, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("scrape %s: %w", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("scrape %s: http status %s", target, resp.Status)
	}
	host := ""
	if u, err := url.Parse(target); err == nil {
		host = u.Hostname()
	}
	samples, jobs, err := ParseExporter(resp.Body, host, time.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("scrape %s: %w", target, err)
	}
	return samples, jobs, nil
}

// ParseExporter parses one dcgm-exporter /metrics page (Prometheus text
// format) into one sample per GPU UUID, sorted by host and UUID. host is used
// when the series carry no Hostname label; now is the sample time unless the
// series carry timestamps. Families Strata does not use are ignored; DCGM
// blank sentinels are treated as missing; label names match
// case-insensitively. Series without a UUID label are skipped. The second
// result lists the hpc_job labels found, one JobGPU per (job, GPU).
func ParseExporter(r io.Reader, host string, now time.Time) ([]Sample, []JobGPU, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, nil, fmt.Errorf("parse exporter metrics: %w", err)
	}
	acc := map[string]*gpuAcc{}
	jobs := map[JobGPU]bool{}
	names := make([]string, 0, len(fams))
	for name := range fams {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, ok := exporterFields[strings.ToUpper(name)]
		if !ok {
			continue
		}
		fam := fams[name]
		u := unitFromHelp(fam.GetHelp(), f.u)
		for _, m := range fam.GetMetric() {
			addSeries(acc, jobs, m, f.q, u, host, now)
		}
	}
	samples := finish(acc)
	if err := checkScrape(samples, now); err != nil {
		return nil, nil, fmt.Errorf("parse exporter metrics: %w", err)
	}
	return samples, sortedJobs(jobs), nil
}

// Series timestamps must lie within this window around the scrape time.
const (
	maxSampleAge  = 24 * time.Hour
	maxClockAhead = time.Hour
)

// checkScrape refuses implausible samples (Sample.Check) and series
// timestamps far from the scrape time (a broken exporter clock), naming
// every GPU concerned.
func checkScrape(samples []Sample, now time.Time) error {
	var errs []error
	for _, s := range samples {
		if err := s.Check(); err != nil {
			errs = append(errs, err)
		}
		if s.Time.After(now.Add(maxClockAhead)) || s.Time.Before(now.Add(-maxSampleAge)) {
			errs = append(errs, fmt.Errorf("GPU %q on %q: timestamp %s is not within %v before and %v after the scrape at %s",
				s.UUID, s.Host, s.Time.Format(time.RFC3339), maxSampleAge, maxClockAhead, now.Format(time.RFC3339)))
		}
	}
	return errors.Join(errs...)
}

// addSeries folds one series into the GPU it belongs to.
func addSeries(acc map[string]*gpuAcc, jobs map[JobGPU]bool, m *dto.Metric, q quantity, u unit, host string, now time.Time) {
	lbl := map[string]string{}
	for _, l := range m.GetLabel() {
		lbl[strings.ToLower(l.GetName())] = l.GetValue()
	}
	uuid := lbl["uuid"]
	if uuid == "" {
		return
	}
	v, ok := metricValue(m)
	if !ok {
		return
	}
	if h := lbl["hostname"]; h != "" {
		host = h
	}
	a := acc[host+"\x00"+uuid]
	if a == nil {
		a = &gpuAcc{Sample: Sample{Time: now, Host: host, UUID: uuid, Index: -1, Minor: -1,
			BusID: lbl["pci_bus_id"], Source: "exporter"}}
		a.Index = atoiOr(lbl["gpu"], -1)
		a.Minor = atoiOr(strings.TrimPrefix(lbl["device"], "nvidia"), -1)
		acc[host+"\x00"+uuid] = a
	}
	if m.TimestampMs != nil {
		a.Time = time.UnixMilli(m.GetTimestampMs()).UTC()
	}
	q.apply(a, v, u)
	if j := lbl["hpc_job"]; j != "" {
		if id, err := strconv.ParseInt(j, 10, 64); err == nil {
			jobs[JobGPU{Job: id, Host: host, Index: a.Index, UUID: uuid}] = true
		}
	}
}

// metricValue returns the value of a gauge, counter or untyped series, or
// false when it is a DCGM blank sentinel or NaN.
func metricValue(m *dto.Metric) (float64, bool) {
	var v float64
	switch {
	case m.Gauge != nil:
		v = m.Gauge.GetValue()
	case m.Counter != nil:
		v = m.Counter.GetValue()
	case m.Untyped != nil:
		v = m.Untyped.GetValue()
	default:
		return 0, false
	}
	if v != v || v < 0 || IsBlank(v) {
		return 0, false
	}
	return v, true
}

func finish(acc map[string]*gpuAcc) []Sample {
	out := make([]Sample, 0, len(acc))
	for _, a := range acc {
		if a.MemTotal == 0 && a.free > 0 {
			a.MemTotal = a.MemUsed + a.free
		}
		out = append(out, a.Sample)
	}
	sortSamples(out)
	return out
}

func sortedJobs(m map[JobGPU]bool) []JobGPU {
	var out []JobGPU
	for j := range m {
		out = append(out, j)
	}
	sortJobGPUs(out)
	return out
}

func sortSamples(s []Sample) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].Host != s[j].Host {
			return s[i].Host < s[j].Host
		}
		if s[i].UUID != s[j].UUID {
			return s[i].UUID < s[j].UUID
		}
		return s[i].Time.Before(s[j].Time)
	})
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}
