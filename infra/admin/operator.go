package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
)

// The operator's commands that the operator API serves too
// (/api/operator/..., docs/operator.md): both call access.App, so nothing
// is implemented twice.

// operatorCommand runs cmd when it is one of them (ok false otherwise).
func operatorCommand(ctx context.Context, s *dynamo.Store, cmd string, o options) (out any, ok bool, err error) {
	a := access.NewApp(s)
	needOrg := func() error {
		if o.orgID == "" {
			return &gifting.Error{Code: gifting.CodeValidation, Message: "-org is required", Details: map[string]string{"org": "is required"}}
		}
		return nil
	}
	switch cmd {
	case "suspend-org", "resume-org":
		if err := needOrg(); err != nil {
			return nil, true, err
		}
		if cmd == "suspend-org" {
			err = a.Suspend(ctx, o.orgID)
		} else {
			err = a.Resume(ctx, o.orgID)
		}
		return map[string]any{"organizationId": o.orgID, "suspended": cmd == "suspend-org"}, true, err
	case "first-key":
		if err := needOrg(); err != nil {
			return nil, true, err
		}
		secret, key, err := a.IssueFirstAdminKey(ctx, o.orgID, o.user, o.name)
		return map[string]any{"apiKey": secret, "key": key,
			"note": "The key is shown only now; only its SHA-256 hash is stored."}, true, err
	case "set-rate-limits":
		if err := needOrg(); err != nil {
			return nil, true, err
		}
		limits, err := parseLimits(o.limits)
		if err != nil {
			return nil, true, err
		}
		err = a.SetRateLimits(ctx, o.orgID, limits)
		return map[string]any{"organizationId": o.orgID, "rateLimits": limits}, true, err
	case "usage":
		if err := needOrg(); err != nil {
			return nil, true, err
		}
		u, err := a.Usage(ctx, o.orgID, o.month)
		return u, true, err
	case "list-orgs":
		page, err := a.Orgs(ctx, o.month, o.after, o.limit)
		return page, true, err
	}
	return nil, false, nil
}

// parseLimits reads -limits: class=n pairs separated by commas
// (launch=10,bulk-add=5). access.CheckRateLimits checks the classes and
// numbers.
func parseLimits(v string) (map[gifting.RateClass]int, error) {
	out := map[gifting.RateClass]int{}
	for _, pair := range strings.Split(v, ",") {
		if pair == "" {
			continue
		}
		class, n, found := strings.Cut(pair, "=")
		limit, err := strconv.Atoi(n)
		if !found || err != nil {
			return nil, &gifting.Error{Code: gifting.CodeValidation, Message: "-limits takes class=number pairs separated by commas",
				Details: map[string]string{"limits": "must be class=number,class=number"}}
		}
		out[gifting.RateClass(strings.TrimSpace(class))] = limit
	}
	return out, nil
}
