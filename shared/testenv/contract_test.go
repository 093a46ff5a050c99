package testenv

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the errors reported to it, so the
// validator's own failures can be asserted.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

const (
	validGift = `{"giftId":"g1","organizationId":"acme","name":"Mug","price":12.5,"currency":"USD",` +
		`"inventory":{"total":1,"available":1,"reserved":0},"status":"available","isDelightloop":false,` +
		`"createdAt":"2026-01-05T09:00:00.000Z","updatedAt":"2026-01-05T09:00:00.000Z"}`
	notFound     = `{"success":false,"statusCode":404,"message":"Not Found","error":"no route","code":"NOT_FOUND"}`
	badRequest   = `{"success":false,"statusCode":400,"message":"Bad Request","error":"bad","code":"VALIDATION_FAILED","details":{"limit":"must be at most 100"}}`
	unauthorized = `{"success":false,"statusCode":401,"message":"Unauthorized","error":"Invalid or missing API key"}`
)

func TestValidateContract(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, method, target, key string
		status                    int
		body                      string
		want                      string // a part of the one error expected; "" for none
	}{
		{"documented 200", "GET", "/api/campaigns/gifts/g1", "k", 200, validGift, ""},
		{"documented 404", "GET", "/api/campaigns/gifts/nope", "k", 404, notFound, ""},
		{"documented 400 for a bad query", "GET", "/api/campaigns/gifts?limit=101", "k", 400, badRequest, ""},
		{"401 without a key", "GET", "/api/campaigns/gifts/g1", "", 401, unauthorized, ""},
		{"unknown route answered 404", "GET", "/api/campaigns/nowhere/at/all", "k", 404, notFound, ""},
		{"public document", "GET", "/api/campaigns/openapi.json", "", 200, `{"openapi":"3.1.0","info":{},"paths":{}}`, ""},
		{"undocumented path", "GET", "/nowhere/at/all", "k", 200, `{}`, "GET /nowhere/at/all is not documented"},
		{"undocumented method", "PUT", "/api/campaigns/gifts/g1", "k", 200, `{}`, "has no PUT operation"},
		{"undocumented status", "GET", "/api/campaigns/gifts/g1", "k", 409,
			`{"success":false,"statusCode":409,"message":"Conflict","error":"x","code":"CONFLICT"}`,
			"status 409 of GET /api/campaigns/gifts/{giftId}"},
		{"body missing a required field", "GET", "/api/campaigns/gifts/g1", "k", 200,
			strings.Replace(validGift, `"currency":"USD",`, "", 1), "does not match the document"},
		{"body with an undocumented field", "GET", "/api/campaigns/gifts/g1", "k", 200,
			strings.Replace(validGift, `{`, `{"secret":"x",`, 1), "does not match the document"},
		{"error with the wrong code for its status", "GET", "/api/campaigns/gifts/g1", "k", 404,
			strings.Replace(notFound, "NOT_FOUND", "CONFLICT", 1), "does not match the document"},
		{"401 with a code field", "GET", "/api/campaigns/gifts/g1", "", 401,
			strings.Replace(unauthorized, `"success"`, `"code":"UNAUTHORIZED","success"`, 1), "does not match the document"},
		{"invalid query accepted", "GET", "/api/campaigns/gifts?limit=101", "k", 200,
			`{"data":[],"page":1,"limit":12,"total":0,"totalPages":0,"hasNext":false,"hasPrev":false}`,
			"breaks the document, yet it was answered 200"},
		{"missing key accepted", "GET", "/api/campaigns/gifts/g1", "", 200, validGift, "breaks the document"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.target, nil)
			if tt.key != "" {
				req.Header.Set("x-api-key", tt.key)
			}
			rec := &recorder{TB: t}
			ValidateContract(rec, req, tt.status, http.Header{"Content-Type": {"application/json"}}, []byte(tt.body))
			switch {
			case tt.want == "" && len(rec.errs) > 0:
				t.Errorf("want no error, got %q", rec.errs)
			case tt.want != "" && len(rec.errs) != 1:
				t.Errorf("want one error containing %q, got %q", tt.want, rec.errs)
			case tt.want != "" && !strings.Contains(rec.errs[0], tt.want):
				t.Errorf("error %q does not contain %q", rec.errs[0], tt.want)
			}
		})
	}
}

func TestValidateContractChecksRequestBodies(t *testing.T) {
	t.Parallel()
	created := `{"success":true,"statusCode":201,"message":"Gift created","data":` + validGift + `}`
	for _, tt := range []struct {
		name, body string
		status     int
		wantErr    bool
	}{
		{"valid body created", `{"name":"Mug","price":1,"currency":"USD","inventory":{"total":1,"available":1,"reserved":0}}`, 201, false},
		{"invalid body refused", `{"name":"Mug"}`, 400, false},
		{"invalid body created", `{"name":"Mug","price":-1,"currency":"USD","inventory":{"total":1,"available":1,"reserved":0}}`, 201, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/api/campaigns/gifts", strings.NewReader(tt.body))
			req.Header.Set("x-api-key", "k")
			req.Header.Set("Content-Type", "application/json")
			body := created
			if tt.status == 400 {
				body = badRequest
			}
			rec := &recorder{TB: t}
			ValidateContract(rec, req, tt.status, http.Header{"Content-Type": {"application/json"}}, []byte(body))
			if got := len(rec.errs) > 0; got != tt.wantErr {
				t.Errorf("error reported = %v, want %v: %q", got, tt.wantErr, rec.errs)
			}
		})
	}
}
