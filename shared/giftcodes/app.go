package giftcodes

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// Sealer seals and opens the pools' keys and the codes (shared/sealed's
// Box over the stack's KMS key).
type Sealer interface {
	Seal(ctx context.Context, plaintext []byte, owner string) (string, error)
	Open(ctx context.Context, sealed, owner string) ([]byte, error)
}

// App runs the code pools' use cases over a store and a sealer.
type App struct {
	store  Store
	sealer Sealer
}

// NewApp returns the use cases over store; without a sealer (no key
// configured) an upload is SERVICE_UNAVAILABLE, as a webhook's secret is.
func NewApp(store Store, sealer Sealer) *App { return &App{store: store, sealer: sealer} }

// chunk is the codes one transaction writes: 98 codes, the pool and the
// gift make DynamoDB's 100 items.
const chunk = 98

// Upload adds codes to orgID's digital gift giftID, each once: a code
// already in the pool, or twice in the request, is refused with the
// reason, as is a code that fails Check; the others are sealed and
// written, and the gift's units grow by their number. Errors: NOT_FOUND
// (no such gift for orgID), CONFLICT (a physical gift, or the service
// catalog's), VALIDATION_FAILED (no codes, or more than MaxCodes).
func (a *App) Upload(ctx context.Context, orgID, giftID string, codes []Code) (Report, error) {
	var rep Report
	if len(codes) == 0 || len(codes) > MaxCodes {
		var p gifting.Problems
		p.Add("codes", "must hold 1 to "+strconv.Itoa(MaxCodes)+" codes")
		return rep, p.Err()
	}
	if err := a.digitalGift(ctx, orgID, giftID); err != nil {
		return rep, err
	}
	key, err := a.poolKey(ctx, orgID, giftID)
	if err != nil {
		return rep, err
	}
	now := a.store.Now()
	var batch []NewCode
	at := map[string]int{}
	var index []int
	for i := range codes {
		c := &codes[i]
		if p := Check(c, now); p != nil {
			rep.add(Item{Index: i, Status: ItemFailed, Masked: Last4(c.Code), Reason: "invalid code", Details: p})
			continue
		}
		id := ID(key, c.Code)
		if first, dup := at[id]; dup {
			rep.add(Item{Index: i, Status: ItemFailed, Masked: Last4(c.Code), Reason: "the same code as entry " + strconv.Itoa(first)})
			continue
		}
		at[id] = i
		sealed, err := a.sealer.Seal(ctx, Secret{Code: c.Code, PIN: c.PIN, URL: c.URL}.Encode(), CodeOwner(orgID, giftID, id))
		if err != nil {
			return Report{}, gifting.Unavailable(fmt.Errorf("seal a code: %w", err))
		}
		batch = append(batch, NewCode{ID: id, Sealed: sealed, Masked: Last4(c.Code), ExpiresAt: c.ExpiresAt, CreatedAt: now})
		index = append(index, i)
	}
	for start := 0; start < len(batch); start += chunk {
		end := min(start+chunk, len(batch))
		if err := a.commit(ctx, orgID, giftID, batch[start:end], index[start:end], &rep); err != nil {
			return rep, err
		}
	}
	slices.SortFunc(rep.Items, func(a, b Item) int { return a.Index - b.Index })
	return rep, nil
}

// commit writes one chunk, refusing the codes storage finds stored
// already and writing the rest again (a retried upload meets its own
// codes: each is refused, none counted twice).
func (a *App) commit(ctx context.Context, orgID, giftID string, codes []NewCode, index []int, rep *Report) error {
	for len(codes) > 0 {
		err := a.store.CommitCodes(ctx, orgID, giftID, codes)
		var dup *Duplicates
		switch {
		case err == nil:
			for k, c := range codes {
				rep.add(Item{Index: index[k], Status: ItemAdded, Masked: c.Masked})
			}
			return nil
		case errors.As(err, &dup):
			var keepC []NewCode
			var keepI []int
			for k, c := range codes {
				if slices.Contains(dup.At, k) {
					rep.add(Item{Index: index[k], Status: ItemFailed, Masked: c.Masked, Reason: "already in this gift's codes"})
				} else {
					keepC, keepI = append(keepC, c), append(keepI, index[k])
				}
			}
			codes, index = keepC, keepI
		case errors.Is(err, ErrGiftGone):
			return gifting.NotFound("gift", giftID)
		default:
			return err
		}
	}
	return nil
}

// Summary counts giftID's codes. Errors as Upload's.
func (a *App) Summary(ctx context.Context, orgID, giftID string) (Summary, error) {
	if err := a.digitalGift(ctx, orgID, giftID); err != nil {
		return Summary{}, err
	}
	pool, err := a.store.CodePool(ctx, orgID, giftID)
	if err != nil {
		return Summary{}, err
	}
	expired, err := a.store.ExpiredCodes(ctx, orgID, giftID, a.store.Now())
	if err != nil {
		return Summary{}, err
	}
	return Summary{GiftID: giftID, Total: pool.Codes, Assigned: pool.Assigned, Expired: expired,
		Available: max(0, pool.Codes-pool.Assigned-expired)}, nil
}

// digitalGift checks that giftID is a digital gift of orgID's own.
func (a *App) digitalGift(ctx context.Context, orgID, giftID string) error {
	g, err := a.store.VisibleGift(ctx, orgID, giftID)
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return gifting.NotFound("gift", giftID)
	case err != nil:
		return err
	case g.OrganizationID != orgID:
		return gifting.Errorf(gifting.CodeConflict, "gift %q is the service catalog's: its codes are the operator's", giftID)
	case g.Type != catalog.GiftDigital:
		return gifting.Errorf(gifting.CodeConflict, "gift %q is physical: codes go to a digital gift (type: digital, set when the gift is created)", giftID)
	}
	return nil
}

// poolKey returns the clear HMAC key of the gift's pool, creating the
// pool on its first upload (a random 256-bit key, sealed for the gift).
func (a *App) poolKey(ctx context.Context, orgID, giftID string) ([]byte, error) {
	if a.sealer == nil {
		return nil, gifting.Unavailable(errors.New("no encryption key is configured for gift codes"))
	}
	owner := PoolOwner(orgID, giftID)
	for range 3 {
		pool, err := a.store.CodePool(ctx, orgID, giftID)
		if err != nil {
			return nil, err
		}
		if pool.SealedKey != "" {
			key, err := a.sealer.Open(ctx, pool.SealedKey, owner)
			if err != nil {
				return nil, gifting.Unavailable(fmt.Errorf("open the gift's code key: %w", err))
			}
			return key, nil
		}
		key := make([]byte, 32)
		_, _ = rand.Read(key) // crypto/rand.Read never fails
		sealed, err := a.sealer.Seal(ctx, key, owner)
		if err != nil {
			return nil, gifting.Unavailable(fmt.Errorf("seal the gift's code key: %w", err))
		}
		switch err := a.store.CommitCodePool(ctx, orgID, giftID, sealed, a.store.Now()); {
		case err == nil:
			return key, nil
		case !errors.Is(err, ErrPoolExists):
			return nil, err
		}
	}
	return nil, gifting.Unavailable(errors.New("the gift's code pool kept changing"))
}
