import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders, seededClient } from '@/testing/test-utils';
import { Hero } from '../components/hero';
import { Highlights } from '../components/highlights';

function renderLanding(appcat: 'taxi' | 'delivery') {
  return renderWithProviders(
    <>
      <Hero>
        <span />
      </Hero>
      <Highlights />
    </>,
    { client: seededClient(null, { appcat }) },
  );
}

describe('the landing wording follows the app category', () => {
  it('speaks of rides on a taxi platform', async () => {
    renderLanding('taxi');
    expect(await screen.findByText('Your ride, right on time.')).toBeInTheDocument();
    expect(screen.getByText('Why ride with us')).toBeInTheDocument();
    expect(screen.queryByText(/parcel/i)).not.toBeInTheDocument();
  });

  it('speaks of parcels on a delivery platform', async () => {
    renderLanding('delivery');
    expect(await screen.findByText('Your parcel, right on time.')).toBeInTheDocument();
    expect(screen.getByText('Why send with us')).toBeInTheDocument();
    expect(screen.getByText(/Follow your parcel on the map/)).toBeInTheDocument();
    expect(screen.queryByText('Your ride, right on time.')).not.toBeInTheDocument();
  });
});
