import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '@/lib/query-keys';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { User } from '@/types/api';
import { LicenceUpload } from '../components/licence-upload';

const driver = testUser({ id: 'user-driver-1', usertype: 'driver' });
const image = () => new File([new Uint8Array([137, 80, 78, 71])], 'licence.png', { type: 'image/png' });

describe("the driver's licence", () => {
  it('says none is on file, then sends the chosen image and shows it', async () => {
    const api = mockApi({ 'POST /api/v1/users/me/license-image': () => ({ user: { ...driver, licenseImage: '/api/v1/files/licence-1' } }) });
    const user = userEvent.setup();
    const { client } = renderWithProviders(<LicenceUpload user={driver} />, { client: seededClient(driver) });
    expect(screen.getByTestId('licence-missing')).toHaveTextContent('No driving licence uploaded yet.');
    await user.upload(screen.getByTestId('licence-input'), image());
    expect(await screen.findByTestId('licence-message')).toHaveTextContent('Your driving licence was saved.');
    expect(api.calls.at(-1)?.body).toBeInstanceOf(FormData);
    // The signed-in user now carries it, so every screen showing the user shows it.
    expect(client.getQueryData<User>(queryKeys.me)?.licenseImage).toBe('/api/v1/files/licence-1');
  });

  it('shows the licence on file', () => {
    const withLicence = { ...driver, licenseImage: '/api/v1/files/licence-1' };
    renderWithProviders(<LicenceUpload user={withLicence} />, { client: seededClient(withLicence) });
    expect(screen.getByTestId('licence-image')).toHaveAttribute('src', '/api/v1/files/licence-1');
    expect(screen.getByText('Replace driving licence')).toBeInTheDocument();
  });

  it("shows the server's message when the file is not an image", async () => {
    mockApi({ 'POST /api/v1/users/me/license-image': () => apiError(400, 'choose_image_first') });
    const user = userEvent.setup();
    renderWithProviders(<LicenceUpload user={driver} />, { client: seededClient(driver) });
    await user.upload(screen.getByTestId('licence-input'), image());
    expect(await screen.findByTestId('licence-message')).toHaveTextContent('Please choose an image first.');
  });
});
