package slurm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/slurm"
)

// Discovery takes the newest OpenAPI version that both slurmrestd and
// Strata know, and says which it took and what was offered.
func TestDiscoveryPrefersNewestSharedVersion(t *testing.T) {
	cases := []struct {
		name    string
		served  []string
		want    string
		wantErr bool
	}{
		{"Slurm 24.11", []string{"v0.0.40", "v0.0.41", "v0.0.42"}, "v0.0.42", false},
		{"Slurm 25.05", []string{"v0.0.41", "v0.0.42", "v0.0.43"}, "v0.0.42", false},
		{"Slurm 26.05", []string{"v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"}, "v0.0.44", false},
		{"a release without v0.0.42", []string{"v0.0.44", "v0.0.45", "v0.0.46"}, "v0.0.44", false},
		{"nothing shared", []string{"v0.0.43", "v0.0.45"}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var paths []string
				for _, v := range tc.served {
					paths = append(paths, `"/slurm/`+v+`/jobs/":{}`)
				}
				_, _ = w.Write([]byte(`{"paths":{` + strings.Join(paths, ",") + `}}`))
			}))
			defer srv.Close()
			var log strings.Builder
			c, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: "root", Token: "t",
				Retries: -1, Timeout: 5 * time.Second, Scontrol: "none"}, zerolog.New(&log))
			if tc.wantErr {
				if !errors.Is(err, slurm.ErrUnsupportedVersion) || !strings.Contains(err.Error(), strings.Join(tc.served, " ")) {
					t.Fatalf("err = %v, want ErrUnsupportedVersion naming %v", err, tc.served)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if diff := cmp.Diff([]string{tc.want, tc.served[0]}, []string{c.APIVersion(), c.ServedVersions()[0]}); diff != "" {
				t.Errorf("chosen and first served version (-want +got):\n%s", diff)
			}
			if !strings.Contains(log.String(), `"api_version":"`+tc.want+`"`) {
				t.Errorf("log %q does not name the version chosen", log.String())
			}
		})
	}
}
