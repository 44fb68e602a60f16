package slurm

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"

	api "github.com/SlinkyProject/slurm-client/api/v0042"

	"github.com/strata-hpc/strata/planner"
)

// The site's policy beside each job's priority (issue 31): slurmctld's
// GET /shares (every association's fairshare factor, as the site's
// fairshare algorithm, classic or fair tree, computes it), slurmdbd's GET
// /qos (each QOS's priority) and the partitions' PriorityJobFactor. They
// give a pending job planner.Job.Site, which weighs the job where its own
// multifactor priority is not known (planner/prioritymode.go says which
// wins). Read only when slurmrestd serves /slurmdb (the cluster has
// accounting). When /shares or /qos fails or is malformed, every pending
// job gets planner.Job.SiteUnread instead, and the planner leaves the jobs
// that need it untouched: never ranked as if the site had no policy.

// assoc is a user association: account and user.
type assoc struct{ account, user string }

// sharesRead is what GET /shares says: each user association's fairshare
// factor (0 to 1) and the accounts.
type sharesRead struct {
	factor   map[assoc]float64
	accounts map[string]bool
}

// float64NoValV0042 is slurmrestd's {set, infinite, number} float.
type float64NoValV0042 struct {
	Set      bool    `json:"set"`
	Infinite bool    `json:"infinite"`
	Number   float64 `json:"number"`
}

// shareWireV0042 is the subset of api.V0042AssocSharesObjWrap Strata reads.
type shareWireV0042 struct {
	Name      *string  `json:"name"`
	Parent    *string  `json:"parent"`
	Type      []string `json:"type"`
	Fairshare *struct {
		Factor *float64NoValV0042 `json:"factor"`
	} `json:"fairshare"`
}

type sharesRespV0042 struct {
	Shares *struct {
		Shares *[]shareWireV0042 `json:"shares"`
	} `json:"shares"`
	Errors   *api.V0042OpenapiErrors   `json:"errors"`
	Warnings *api.V0042OpenapiWarnings `json:"warnings"`
}

// readShares reads GET /shares. An answer without a share list, a share
// without a name or type, or a user's share without a fairshare factor
// from 0 to 1 is refused (ErrBadAnswer).
func readShares(resp *http.Response, err error) (sharesRead, error) {
	if err != nil {
		return sharesRead{}, fmt.Errorf("read /shares: %w", err)
	}
	var body sharesRespV0042
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return sharesRead{}, fmt.Errorf("read /shares: %w", err)
	}
	if body.Shares == nil || body.Shares.Shares == nil {
		return sharesRead{}, fmt.Errorf("read /shares: %w: no shares list", ErrBadAnswer)
	}
	out := sharesRead{factor: map[assoc]float64{}, accounts: map[string]bool{}}
	for i, w := range *body.Shares.Shares {
		if w.Name == nil || *w.Name == "" || len(w.Type) == 0 {
			return sharesRead{}, fmt.Errorf("read /shares: %w: share %d has no name or type", ErrBadAnswer, i)
		}
		if !slices.Contains(w.Type, "USER") {
			out.accounts[*w.Name] = true
			continue
		}
		a := assoc{account: deref(w.Parent), user: *w.Name}
		var f *float64NoValV0042
		if w.Fairshare != nil {
			f = w.Fairshare.Factor
		}
		if a.account == "" || f == nil || !f.Set || f.Infinite || math.IsNaN(f.Number) || f.Number < 0 || f.Number > 1 {
			return sharesRead{}, fmt.Errorf("read /shares: %w: user %s of account %q has no fairshare factor from 0 to 1",
				ErrBadAnswer, a.user, a.account)
		}
		out.factor[a] = f.Number
	}
	return out, nil
}

type qosWireV0042 struct {
	Name     string     `json:"name"`
	Priority noValV0042 `json:"priority"`
}

type qosRespV0042 struct {
	QOS      *[]qosWireV0042           `json:"qos"`
	Errors   *api.V0042OpenapiErrors   `json:"errors"`
	Warnings *api.V0042OpenapiWarnings `json:"warnings"`
}

// readQOS reads slurmdbd's GET /qos: each QOS's priority (unset: 0).
func readQOS(resp *http.Response, err error) (map[string]int64, error) {
	if err != nil {
		return nil, fmt.Errorf("read /qos: %w", err)
	}
	var body qosRespV0042
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return nil, fmt.Errorf("read /qos: %w", err)
	}
	if body.QOS == nil {
		return nil, fmt.Errorf("read /qos: %w: no qos list", ErrBadAnswer)
	}
	out := map[string]int64{}
	for i, q := range *body.QOS {
		if q.Name == "" {
			return nil, fmt.Errorf("read /qos: %w: QOS %d has no name", ErrBadAnswer, i)
		}
		p, _ := q.Priority.value()
		out[q.Name] = max(0, p)
	}
	return out, nil
}

func (v *v0042) shares(ctx context.Context) (sharesRead, error) {
	return readShares(v.raw.SlurmV0042GetShares(ctx, nil))
}

func (v *v0042) qosPriorities(ctx context.Context) (map[string]int64, error) {
	return readQOS(v.raw.SlurmdbV0042GetQos(ctx, nil))
}

// SiteNames is what Slurm knows of the site's policy: its accounts (GET
// /shares) and QOS (GET /qos), sorted, for checking a configuration
// against. It needs accounting (ServesAccounting).
func (c *Client) SiteNames(ctx context.Context) (accounts, qos []string, err error) {
	if !c.accounting {
		return nil, nil, fmt.Errorf("site names: slurmrestd serves no /slurmdb (the cluster has no accounting)")
	}
	sh, err := c.api.shares(ctx)
	if err != nil {
		return nil, nil, err
	}
	q, err := c.api.qosPriorities(ctx)
	if err != nil {
		return nil, nil, err
	}
	for a := range sh.accounts {
		accounts = append(accounts, a)
	}
	for name := range q {
		qos = append(qos, name)
	}
	slices.Sort(accounts)
	slices.Sort(qos)
	return accounts, qos, nil
}

// sitePolicy is one snapshot's read of the site's policy; err says why it
// could not be read.
type sitePolicy struct {
	shares sharesRead
	qos    map[string]int64
	err    error
}

// readSitePolicy reads /shares and /qos (nil without accounting).
func (c *Client) readSitePolicy(ctx context.Context) *sitePolicy {
	if !c.accounting {
		return nil
	}
	p := &sitePolicy{}
	if p.shares, p.err = c.api.shares(ctx); p.err == nil {
		p.qos, p.err = c.api.qosPriorities(ctx)
	}
	return p
}

// applySitePolicy gives each pending job of s its planner.Job.Site, or,
// when the policy or the job's association could not be read, its
// SiteUnread, and logs how many could not be weighed.
func (c *Client) applySitePolicy(s *planner.Snapshot, p *sitePolicy) {
	if p == nil {
		return
	}
	var maxQOS, maxPart int64
	for _, v := range p.qos {
		maxQOS = max(maxQOS, v)
	}
	part := map[string]int64{}
	for _, pt := range s.Partitions {
		part[pt.Name] = pt.PriorityJobFactor
		maxPart = max(maxPart, pt.PriorityJobFactor)
	}
	unread := 0
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if j.State != planner.JobPending {
			continue
		}
		if p.err != nil {
			j.SiteUnread = p.err.Error()
			unread++
			continue
		}
		fs, ok := p.shares.factor[assoc{j.Account, j.User}]
		if !ok {
			j.SiteUnread = fmt.Sprintf("/shares has no association of user %s in account %q", j.User, j.Account)
			unread++
			continue
		}
		f := planner.SiteFactors{Fairshare: fs}
		if maxQOS > 0 {
			f.QOS = float64(p.qos[j.QOS]) / float64(maxQOS)
		}
		if maxPart > 0 {
			f.Partition = float64(part[j.Partition]) / float64(maxPart)
		}
		j.Site = &f
	}
	if unread > 0 {
		ev := c.log.Warn().Int("jobs", unread)
		if p.err != nil {
			ev = ev.Err(p.err)
		}
		ev.Msg("site policy not read for these pending jobs: those whose own priority is not known are left untouched this cycle (reason site_policy_unread)")
	}
}
