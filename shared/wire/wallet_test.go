package wire_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/wire"
)

// TestWalletChange: the data of a wallet.* message, as webhooks and the
// change feed deliver it, is byte for byte what it was when the domain's
// types carried the JSON: the balance after, then the entry with its
// fields in the API's order, the empty optional ones left out.
func TestWalletChange(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 10, 5, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		entry wallet.Entry
		want  string
	}{
		{"a debit for a recipient", wallet.Entry{EntryID: "01KAQ0Y8G0ZX3V5N7W9A1C3E5G", Type: wallet.Debit, Amount: 35, BalanceAfter: 65,
			CampaignID: "c1", RecipientID: "r1", Reason: "recipient added to campaign", CreatedAt: at},
			`{"balance":65,"entry":{"entryId":"01KAQ0Y8G0ZX3V5N7W9A1C3E5G","type":"debit","amount":35,"balanceAfter":65,` +
				`"campaignId":"c1","recipientId":"r1","reason":"recipient added to campaign","createdAt":"2026-11-23T10:05:00.000Z"}}`},
		{"a top-up without a reason", wallet.Entry{EntryID: "01JD8Q9ZZZZZZZZZZZZZZZZZZZ", Type: wallet.TopUp, Amount: 50000, BalanceAfter: 50000, CreatedAt: at},
			`{"balance":50000,"entry":{"entryId":"01JD8Q9ZZZZZZZZZZZZZZZZZZZ","type":"top_up","amount":50000,"balanceAfter":50000,` +
				`"createdAt":"2026-11-23T10:05:00.000Z"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := wire.Marshal(wire.WalletChangeOf(tt.entry))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("data %s\nwant %s", b, tt.want)
			}
		})
	}
}
