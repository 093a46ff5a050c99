package giftcodes

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
)

// Store is what the code pools need of storage. shared/dynamo's Store
// implements it and decides nothing.
type Store interface {
	Now() time.Time
	// VisibleGift reads a gift orgID sees (its own, else the service
	// catalog's); catalog.ErrNotFound when neither exists.
	VisibleGift(ctx context.Context, orgID, giftID string) (catalog.Gift, error)
	// CodePool reads the gift's pool: its sealed key and counters; a zero
	// Pool (Key empty) when the gift has none yet.
	CodePool(ctx context.Context, orgID, giftID string) (Pool, error)
	// CommitCodePool writes a new pool with its sealed key; ErrPoolExists
	// when another upload wrote one first.
	CommitCodePool(ctx context.Context, orgID, giftID, sealedKey string, at time.Time) error
	// CommitCodes writes codes, new, to the gift's pool in one
	// transaction, adding their number to the pool's count and to the
	// gift's total and available units. A *Duplicates naming the codes
	// whose id is stored already, or ErrGiftGone when the gift is no
	// longer a digital gift of orgID: nothing is written then.
	CommitCodes(ctx context.Context, orgID, giftID string, codes []NewCode) error
	// ExpiredCodes counts the gift's unassigned codes past their expiry
	// at now (keys only).
	ExpiredCodes(ctx context.Context, orgID, giftID string, now time.Time) (int, error)
}

// Pool is a gift's code pool as stored: its sealed HMAC key, the codes
// uploaded and the codes assigned.
type Pool struct {
	SealedKey string
	Codes     int
	Assigned  int
}

// NewCode is a code to store: its id (ID), its sealed secret, its mask
// and its expiry.
type NewCode struct {
	ID        string
	Sealed    string
	Masked    string
	ExpiresAt *time.Time
	CreatedAt time.Time
}

// Outcomes storage reports.
var (
	// ErrPoolExists: another upload created the gift's pool first.
	ErrPoolExists = errors.New("the gift's code pool exists")
	// ErrGiftGone: the gift was deleted (or is not digital) when the
	// codes were committed.
	ErrGiftGone = errors.New("the gift is gone")
)

// Duplicates names the codes of a commit (by position) whose id is
// stored already.
type Duplicates struct{ At []int }

func (d *Duplicates) Error() string { return "codes already in the pool" }
