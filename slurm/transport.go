package slurm

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/rs/zerolog"
)

// newHTTPClient builds the HTTP client for cfg: TLS options, optional unix
// socket, authentication headers and bounded retries.
func newHTTPClient(cfg Config, tokens TokenSource, log zerolog.Logger) (*http.Client, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 4
	if cfg.CAFile != "" || cfg.InsecureSkipVerify {
		tc := &tls.Config{InsecureSkipVerify: cfg.InsecureSkipVerify} //nolint:gosec // operator's explicit choice
		if cfg.CAFile != "" {
			pem, err := os.ReadFile(cfg.CAFile)
			if err != nil {
				return nil, fmt.Errorf("read slurm ca file: %w", err)
			}
			tc.RootCAs = x509.NewCertPool()
			if !tc.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("slurm ca file %s holds no PEM certificate", cfg.CAFile)
			}
		}
		base.TLSClientConfig = tc
	}
	if cfg.Socket != "" {
		sock := cfg.Socket
		base.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}
	}
	rt := &retryTransport{next: base, cfg: cfg, tokens: tokens, log: log, sleep: sleepCtx}
	return &http.Client{Transport: rt, CheckRedirect: refuseRedirect}, nil
}

// refuseRedirect stops every redirect: slurmrestd never sends one, and
// following it would send the JWT along, possibly to another host.
func refuseRedirect(req *http.Request, _ []*http.Request) error {
	return fmt.Errorf("slurmrestd answered with a redirect to %s: refused (the JWT would go along); point --slurm-url at slurmrestd itself", req.URL.Redacted())
}

// warnCleartext warns when a JWT would travel unencrypted to another host.
func warnCleartext(cfg Config, log zerolog.Logger) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Scheme != "http" || cfg.Socket != "" || (cfg.Token == "" && cfg.TokenFile == "") {
		return
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return
	}
	log.Warn().Str("url", u.Redacted()).Msg("the JWT travels in clear text over http:// to another host: use https:// (with --slurm-ca-file) or a unix socket")
}

// retryTransport adds the auth headers, bounds every attempt with
// cfg.Timeout and retries attempts that failed for transient reasons.
type retryTransport struct {
	next   http.RoundTripper
	cfg    Config
	tokens TokenSource
	log    zerolog.Logger
	sleep  func(ctx context.Context, d time.Duration) error
}

// RoundTrip implements http.RoundTripper. Retried: connection errors for
// reads, refused connections for writes (nothing was sent), HTTP 502/503/504
// except to a DELETE (a signal, sent at most once) and, for reads, HTTP 5xx
// answers without a Slurm error in errors[]. A 5xx that carries Slurm errors
// is a final answer (e.g. "not pending") and is returned at once.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.authorize(req); err != nil {
		return nil, err
	}
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	backoff := t.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		resp, err := t.attempt(req, body)
		retry, why := t.retryable(req, resp, err)
		if !retry || attempt >= t.cfg.Retries {
			if err != nil && retry {
				return nil, fmt.Errorf("%w after %d attempts: %w", ErrUnavailable, attempt+1, err)
			}
			return resp, err
		}
		if resp != nil {
			resp.Body.Close()
		}
		t.log.Warn().Str("method", req.Method).Str("path", req.URL.Path).Int("attempt", attempt+1).
			Str("reason", why).Dur("backoff_ms", backoff).Msg("slurmrestd request failed, retrying")
		if err := t.sleep(req.Context(), backoff); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		backoff = min(2*backoff, maxRetryBackoff)
	}
}

// CloseIdleConnections closes the kept-alive connections of the transport
// below (http.Client.CloseIdleConnections).
func (t *retryTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *retryTransport) authorize(req *http.Request) error {
	if t.cfg.User != "" {
		req.Header.Set("X-SLURM-USER-NAME", t.cfg.User)
	}
	if t.tokens == nil {
		return nil
	}
	tok, err := t.tokens.Token(req.Context())
	if err != nil {
		return err
	}
	req.Header.Set("X-SLURM-USER-TOKEN", tok)
	return nil
}

func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return b, nil
}

// attempt sends one try with its own timeout. The timeout stays armed until
// the caller closes the response body.
func (t *retryTransport) attempt(req *http.Request, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.cfg.Timeout)
	r := req.Clone(ctx)
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode >= 500 {
		// Buffer small error bodies so retryable() can look at errors[].
		b, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		cancel()
		if rerr != nil {
			return nil, fmt.Errorf("read error answer: %w", rerr)
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		return resp, nil
	}
	limit := t.cfg.maxResponseBytes()
	if resp.ContentLength > limit {
		resp.Body.Close()
		cancel()
		return nil, &ResponseTooLargeError{Method: req.Method, Path: req.URL.Path, Limit: limit, Declared: resp.ContentLength}
	}
	resp.Body = &cancelBody{ReadCloser: &limitBody{ReadCloser: resp.Body, left: limit,
		err: &ResponseTooLargeError{Method: req.Method, Path: req.URL.Path, Limit: limit, Declared: -1}}, cancel: cancel}
	return resp, nil
}

// limitBody fails a read that would pass the size limit: the bytes are
// counted as they stream, so an answer over the limit costs at most the
// limit in reading, whatever its Content-Length says (or does not).
type limitBody struct {
	io.ReadCloser
	left int64 // bytes still allowed
	err  error
}

// Read implements io.Reader; past the limit it returns err.
func (b *limitBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more than allowed tells "over"
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n - 1, b.err
	}
	return n, err
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

// Close closes the body and releases the attempt's timeout.
func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func (t *retryTransport) retryable(req *http.Request, resp *http.Response, err error) (bool, string) {
	if req.Context().Err() != nil {
		return false, ""
	}
	read := req.Method == http.MethodGet || req.Method == http.MethodHead
	if errors.Is(err, ErrResponseTooLarge) {
		return false, "" // the same answer again: no
	}
	if err != nil {
		var op *net.OpError
		refused := errors.As(err, &op) && op.Op == "dial"
		return read || refused, err.Error()
	}
	switch {
	case resp.StatusCode == http.StatusBadGateway, resp.StatusCode == http.StatusServiceUnavailable,
		resp.StatusCode == http.StatusGatewayTimeout:
		// A DELETE (a checkpoint signal) is not idempotent: a proxy's
		// 502/503/504 does not say that slurmctld did not deliver it, and
		// a second try would send it again (the caller re-reads the job).
		return req.Method != http.MethodDelete, resp.Status
	case resp.StatusCode >= 500 && read:
		return !hasSlurmErrors(resp), resp.Status
	}
	return false, ""
}

// hasSlurmErrors reports whether a buffered error answer lists errors[].
func hasSlurmErrors(resp *http.Response) bool {
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	var env struct {
		Errors []Problem `json:"errors"`
	}
	return json.Unmarshal(b, &env) == nil && len(env.Errors) > 0
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
