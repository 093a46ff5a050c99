package main

import (
	"time"

	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/wire"
)

// What the wallet commands print: the CLI's own shapes of the wallet
// slice's values, with the field names they have always had.

// walletJSON is a wallet as create-org, show-org and top-up print it.
type walletJSON struct {
	OrgID     string    `json:"organizationId"`
	Balance   int64     `json:"balance"`
	Currency  string    `json:"currency"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func walletJSONOf(w wallet.Wallet) walletJSON {
	return walletJSON{OrgID: w.OrgID, Balance: w.Balance, Currency: w.Currency, UpdatedAt: w.UpdatedAt}
}

// topUpJSON is what top-up did (wallet.TopUpResult); its entry is the
// ledger entry as the API lists it.
type topUpJSON struct {
	RequestID string           `json:"requestId"`
	Replayed  bool             `json:"replayed"`
	Wallet    walletJSON       `json:"wallet"`
	Entry     wire.LedgerEntry `json:"ledgerEntry"`
}

func topUpJSONOf(r wallet.TopUpResult) topUpJSON {
	return topUpJSON{RequestID: r.RequestID, Replayed: r.Replayed, Wallet: walletJSONOf(r.Wallet), Entry: wire.LedgerEntryOf(r.Entry)}
}

// ledgerCheckJSON is what verify-ledger found: wallet.LedgerCheck, field
// for field.
type ledgerCheckJSON struct {
	OrgID     string `json:"organizationId"`
	Balance   int64  `json:"balance"`
	LedgerSum int64  `json:"ledgerSum"`
	Entries   int    `json:"entries"`
	OK        bool   `json:"ok"`
	Problem   string `json:"problem,omitempty"`
}
