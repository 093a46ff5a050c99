package wire

import (
	"time"

	"github.com/giftcampaign/service/shared/wallet"
)

// LedgerEntry is a ledger entry as the API lists it (GET /wallet's
// ledger.items) and as the wallet.* webhook messages carry it: one shape,
// declared once, for both doors (the OpenAPI document's LedgerEntry).
type LedgerEntry struct {
	EntryID      string    `json:"entryId"`
	Type         string    `json:"type"`
	Amount       int64     `json:"amount"`
	BalanceAfter int64     `json:"balanceAfter"`
	CampaignID   string    `json:"campaignId,omitempty"`
	RecipientID  string    `json:"recipientId,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
}

// LedgerEntryOf is e as it leaves the service.
func LedgerEntryOf(e wallet.Entry) LedgerEntry {
	return LedgerEntry{EntryID: e.EntryID, Type: string(e.Type), Amount: e.Amount, BalanceAfter: e.BalanceAfter,
		CampaignID: e.CampaignID, RecipientID: e.RecipientID, Reason: e.Reason, CreatedAt: e.CreatedAt}
}

// WalletChange is the data of the wallet.debited, wallet.refunded and
// wallet.topped_up messages: the balance after the change and the ledger
// entry that records it.
type WalletChange struct {
	Balance int64       `json:"balance"`
	Entry   LedgerEntry `json:"entry"`
}

// WalletChangeOf is the data of the message of the change e records.
func WalletChangeOf(e wallet.Entry) WalletChange {
	return WalletChange{Balance: e.BalanceAfter, Entry: LedgerEntryOf(e)}
}
