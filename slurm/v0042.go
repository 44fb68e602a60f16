package slurm

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	api "github.com/SlinkyProject/slurm-client/api/v0042"
)

// v0042 is the adapter for slurmrestd's OpenAPI v0.0.42 (Slurm 24.11 to
// 26.05), over slurm-client's generated api/v0042 package.
type v0042 struct {
	c   *Client
	raw *api.Client
}

var _ restAPI = (*v0042)(nil)

func newV0042(c *Client) (restAPI, error) {
	raw, err := api.NewClient(c.cfg.URL, api.WithHTTPClient(c.http))
	if err != nil {
		return nil, err
	}
	return &v0042{c: c, raw: raw}, nil
}

// decode reads a slurmrestd answer into out, or returns an *APIError for
// a non-2xx status or a 2xx answer whose errors[] is not empty.
func decodeV0042(resp *http.Response, out any, problems func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings)) error {
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// out is filled too where the body has it: slurmrestd answers 500
		// with the partitions and errors[] while slurmdbd is down.
		raw, _ := io.ReadAll(resp.Body)
		_ = decodeJSON(bytes.NewReader(raw), out)
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		return decodeAPIError(resp)
	}
	if err := decodeJSON(resp.Body, out); err != nil {
		return err
	}
	errs, warns := problems()
	if errs != nil && len(*errs) > 0 {
		return &APIError{Status: resp.StatusCode, Errors: problemsV0042(*errs), Warnings: warningsV0042(warns)}
	}
	return nil
}

func problemsV0042(es api.V0042OpenapiErrors) []Problem {
	out := make([]Problem, len(es))
	for i, e := range es {
		out[i] = Problem{Number: int(deref(e.ErrorNumber)), Message: deref(e.Error),
			Description: deref(e.Description), Source: deref(e.Source)}
	}
	return out
}

func warningsV0042(ws *api.V0042OpenapiWarnings) []Problem {
	if ws == nil {
		return nil
	}
	out := make([]Problem, len(*ws))
	for i, w := range *ws {
		out[i] = Problem{Message: deref(w.Description), Source: deref(w.Source)}
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// u32 reads one of slurmrestd's {set, infinite, number} structs: ok is
// false when the value is unset or infinite.
func u32(v *api.V0042Uint32NoValStruct) (int64, bool) {
	if v == nil || v.Set == nil || !*v.Set || v.Infinite != nil && *v.Infinite || v.Number == nil {
		return 0, false
	}
	return int64(*v.Number), true
}

func jobIDString(id int64) string { return strconv.FormatInt(id, 10) }
