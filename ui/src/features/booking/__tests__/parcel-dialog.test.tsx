import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders, testCarTypes, testSettings } from '@/testing/test-utils';
import type { Settings } from '@/types/api';
import { ParcelDialog } from '../components/parcel-dialog';

const car = testCarTypes[0];

describe('the parcel chooser', () => {
  it('offers None for the option and sends none unless one is picked', async () => {
    const onConfirm = vi.fn();
    renderWithProviders(<ParcelDialog open carType={car} settings={testSettings as Settings} onCancel={vi.fn()} onConfirm={onConfirm} />);
    const options = within(screen.getByTestId('parcel-options'));
    expect(options.getByLabelText('None')).toBeChecked();
    await userEvent.setup().click(screen.getByTestId('parcel-confirm'));
    expect(onConfirm).toHaveBeenCalledWith({ parcelTypeIndex: 0, optionIndex: undefined });
  });

  it('has no None when the car type requires an option, and the first is chosen', async () => {
    const onConfirm = vi.fn();
    renderWithProviders(
      <ParcelDialog open carType={{ ...car, optionRequired: true }} settings={testSettings as Settings} onCancel={vi.fn()} onConfirm={onConfirm} />,
    );
    const options = within(screen.getByTestId('parcel-options'));
    expect(options.queryByLabelText('None')).not.toBeInTheDocument();
    expect(options.getByLabelText('Fragile handling ($2.00)')).toBeChecked();
    await userEvent.setup().click(screen.getByTestId('parcel-confirm'));
    expect(onConfirm).toHaveBeenCalledWith({ parcelTypeIndex: 0, optionIndex: 0 });
  });
});
