package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/wire"
)

// walletDTO is the data of GET /wallet: the balance and a page of the
// ledger, newest first, so a tenant can account for every credit. Its
// entries are shared/wire's, the shape the wallet.* messages carry too.
type walletDTO struct {
	OrganizationID string         `json:"organizationId"`
	Balance        int64          `json:"balance"`
	Currency       string         `json:"currency"`
	Budget         gifting.Budget `json:"budget"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	Ledger         ledgerPageDTO  `json:"ledger"`
}

type ledgerPageDTO struct {
	Items      []wire.LedgerEntry `json:"items"`
	Pagination gifting.Pagination `json:"pagination"`
	// NextCursor is the cursor of the next page, "" on the last: entries
	// written meanwhile do not move it, as they move page numbers.
	NextCursor string `json:"nextCursor"`
}

// toWalletDTO is the answer of GET /wallet for statement st of orgID's
// wallet, read as page (from cursor, when not "").
func toWalletDTO(orgID string, st wallet.Statement, page gifting.PageRequest, cursor string) walletDTO {
	items := make([]wire.LedgerEntry, len(st.Entries))
	for i, e := range st.Entries {
		items[i] = wire.LedgerEntryOf(e)
	}
	pagination := gifting.NewPagination(page, st.Total)
	if cursor != "" {
		// Pages counted from the cursor: what follows is what was read.
		pagination.HasNext, pagination.HasPrev = st.Next != "", true
	}
	return walletDTO{
		OrganizationID: orgID, Balance: st.Wallet.Balance, Currency: st.Wallet.Currency, Budget: st.Budget,
		UpdatedAt: st.Wallet.UpdatedAt,
		Ledger:    ledgerPageDTO{Items: items, Pagination: pagination, NextCursor: st.Next},
	}
}

// wallet serves GET /wallet (enveloped): page and limit (default 12) page
// through the ledger; cursor (a previous page's nextCursor) starts after
// that page's last entry.
func (s *Server) wallet(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	cursor := q.str("cursor")
	if cursor != "" && !gifting.IsNewID(cursor) {
		q.problems.Add("cursor", "must be a ledger.nextCursor a previous page returned (an entry id)")
	}
	if err := q.err(); err != nil {
		return err
	}
	orgID := principal(r.Context()).OrgID
	st, err := s.wallets.Statement(r.Context(), orgID, cursor, page)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Wallet retrieved", toWalletDTO(orgID, st, page, cursor))
	return nil
}
