package httpapi

import (
	"crypto/subtle"
	"net/http"
	"strconv"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Operator is the operator API's group (/api/operator/...): the service's
// operator creates, suspends and resumes organizations, issues their first
// admin key, tops up their wallets, sets their rate limits and lists them
// with their usage. It is not among Groups: the tenants' API document and
// the tenant functions know nothing of it, and it is served only where it
// is turned on (the OperatorApi parameter of template.yaml; the local
// runner, with a token). Its use cases are access.App's and wallet.App's,
// the ones the admin CLI calls.
var Operator = Group{"operator", (*Server).operatorRoutes}

// OperatorTokenHeader carries the local operator token (Config.OperatorToken).
const OperatorTokenHeader = "x-operator-token"

func (s *Server) operatorRoutes() []route {
	const org = "/api/operator/organizations/{organizationId}"
	return []route{
		{pattern: "POST /api/operator/organizations", handle: s.opCreateOrg, operator: true},
		{pattern: "GET /api/operator/organizations", handle: s.opListOrgs, operator: true},
		{pattern: "POST " + org + "/suspend", handle: s.opSuspend, operator: true},
		{pattern: "POST " + org + "/resume", handle: s.opResume, operator: true},
		{pattern: "POST " + org + "/api-keys", handle: s.opFirstKey, operator: true},
		{pattern: "POST " + org + "/top-ups", handle: s.opTopUp, operator: true},
		{pattern: "PUT " + org + "/rate-limits", handle: s.opRateLimits, operator: true},
	}
}

// AllowOperator sets the token the operator routes accept (the local
// runner's, printed by make run); see operatorAuth.
func (s *Server) AllowOperator(token string) { s.cfg.OperatorToken = token }

// operatorAuth lets an operator request through. With a token configured
// (locally) the request must carry it in x-operator-token. Without one
// (in AWS) API Gateway's AWS_IAM authorizer has checked the caller's SigV4
// signature against its IAM policy before the function runs, and the
// request must carry that authorizer's identity: should the route ever be
// deployed without the authorizer, the function still refuses it. Any
// other request is 401, the same answer whatever was wrong.
func (s *Server) operatorAuth(r *http.Request) error {
	if want := s.cfg.OperatorToken; want != "" {
		got := r.Header.Get(OperatorTokenHeader)
		if subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1 {
			return nil
		}
		return errOperatorUnauthorized
	}
	if rc, ok := core.GetAPIGatewayV2ContextFromContext(r.Context()); ok && rc.Authorizer != nil &&
		rc.Authorizer.IAM != nil && rc.Authorizer.IAM.UserARN != "" {
		return nil
	}
	return errOperatorUnauthorized
}

var errOperatorUnauthorized = gifting.Errorf(gifting.CodeUnauthorized,
	"the operator API needs a request signed with SigV4 by an allowed IAM principal (locally: the x-operator-token make run printed)")

// opOrgDTO is an organization as the operator API shows it.
type opOrgDTO struct {
	gifting.Organization
	Suspended bool          `json:"suspended"`
	Usage     *access.Usage `json:"usage,omitempty"`
}

// opCreateOrgIn is POST /organizations' body.
type opCreateOrgIn struct {
	OrgID    string         `json:"organizationId"`
	Name     string         `json:"name"`
	Domain   string         `json:"domain"`
	Credits  int64          `json:"credits"`
	Budget   gifting.Budget `json:"budget"`
	Products []string       `json:"products"`
}

func (s *Server) opCreateOrg(w http.ResponseWriter, r *http.Request) error {
	var in opCreateOrgIn
	if err := decode(w, r, &in); err != nil {
		return err
	}
	org, wal, err := s.access.CreateOrg(r.Context(), access.NewOrg{OrgID: in.OrgID, Name: in.Name, Domain: in.Domain,
		Credits: in.Credits, Budget: in.Budget, Products: in.Products})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "organization created", map[string]any{"organization": opOrgDTO{Organization: org},
		"wallet": wal})
	return nil
}

func (s *Server) opListOrgs(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	month, _ := q.typed("month")
	after := q.str("cursor")
	limit := access.MaxOrgPage
	if v, ok := q.typed("limit"); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			q.problems.Add("limit", "must be from 1 to 100")
		}
		limit = n
	}
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.access.Orgs(r.Context(), month, after, limit)
	if err != nil {
		return err
	}
	items := make([]opOrgDTO, len(page.Orgs))
	for i, o := range page.Orgs {
		items[i] = opOrgDTO{Organization: o.Org, Suspended: o.Suspended, Usage: &page.Orgs[i].Usage}
	}
	writeEnvelope(w, http.StatusOK, "organizations in id order", map[string]any{"items": items, "nextCursor": page.Next})
	return nil
}

func (s *Server) opSuspend(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("organizationId")
	if err := s.access.Suspend(r.Context(), orgID); err != nil {
		return err
	}
	// This process's resolved keys are read again, so here the
	// suspension applies at once (elsewhere within the key cache time).
	s.forgetKeys()
	writeEnvelope(w, http.StatusOK, "organization suspended", map[string]any{"organizationId": orgID, "suspended": true})
	return nil
}

func (s *Server) opResume(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("organizationId")
	if err := s.access.Resume(r.Context(), orgID); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "organization resumed", map[string]any{"organizationId": orgID, "suspended": false})
	return nil
}

func (s *Server) opFirstKey(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		UserID string `json:"userId"`
		Name   string `json:"name"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	secret, k, err := s.access.IssueFirstAdminKey(r.Context(), r.PathValue("organizationId"), in.UserID, in.Name)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "first admin key issued; give it to the tenant, it is not shown again",
		apiKeySecretDTO{apiKeyDTO: toAPIKeyDTO(k), Key: secret})
	return nil
}

func (s *Server) opTopUp(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Credits   int64  `json:"credits"`
		Reason    string `json:"reason"`
		RequestID string `json:"requestId"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	res, err := s.wallets.TopUpOnce(r.Context(), wallet.TopUpRequest{OrgID: r.PathValue("organizationId"),
		RequestID: in.RequestID, Credits: in.Credits, Reason: in.Reason})
	if err != nil {
		return err
	}
	status, msg := http.StatusCreated, "credits added"
	if res.Replayed {
		status, msg = http.StatusOK, "this request id was applied already; nothing added"
	}
	writeEnvelope(w, status, msg, map[string]any{"requestId": res.RequestID, "replayed": res.Replayed,
		"balance": res.Wallet.Balance, "ledgerEntry": res.Entry})
	return nil
}

func (s *Server) opRateLimits(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		RateLimits map[gifting.RateClass]int `json:"rateLimits"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	orgID := r.PathValue("organizationId")
	if err := s.access.SetRateLimits(r.Context(), orgID, in.RateLimits); err != nil {
		return err
	}
	if s.orgs != nil {
		s.orgs.Remove(orgID)
	}
	writeEnvelope(w, http.StatusOK, "rate limits set", map[string]any{"organizationId": orgID, "rateLimits": in.RateLimits})
	return nil
}
