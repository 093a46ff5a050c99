package access

import (
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

func TestKeyOrg(t *testing.T) {
	live, test := gifting.Principal{OrgID: "acme"}, gifting.Principal{OrgID: "acme~test"}
	for _, tt := range []struct {
		by   gifting.Principal
		mode string
		org  string
		code gifting.Code
	}{
		{live, "", "acme", ""},
		{live, ModeLive, "acme", ""},
		{live, ModeTest, "acme~test", ""},
		{test, "", "acme~test", ""},
		{test, ModeTest, "acme~test", ""},
		{test, ModeLive, "", gifting.CodeValidation},
		{live, "sandbox", "", gifting.CodeValidation},
	} {
		org, err := keyOrg(tt.by, tt.mode)
		var code gifting.Code
		if err != nil {
			code = gifting.ErrorCode(err)
		}
		if org != tt.org || code != tt.code {
			t.Errorf("keyOrg(%s, %q) = %q, %v; want %q, %q", tt.by.OrgID, tt.mode, org, err, tt.org, tt.code)
		}
	}
	if RequireTestKey(live) == nil || RequireTestKey(test) != nil {
		t.Error("RequireTestKey lets a live key in or keeps a test key out")
	}
}
