import { QueryClient } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { AppProvider } from '@/app/provider';
import { queryKeys } from '@/lib/query-keys';
import type { CarType, PublicSettings, User } from '@/types/api';

export function testQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } } });
}

export const testSettings = {
  appName: 'Wayfare',
  appcat: 'taxi',
  code: 'USD',
  symbol: '$',
  swipe_symbol: false,
  decimal: 2,
  otp_secure: true,
  country: 'United States',
  restrictCountry: 'us',
  AllowCountrySelection: false,
  convert_to_mile: false,
  AllowDeliveryPickupImageCapture: false,
  AllowFinalDeliveryImageCapture: false,
  RiderWithDraw: false,
  autoDispatch: true,
  bank_fields: false,
  showLiveRoute: true,
  AllowCriticalEditsAdmin: true,
  FacebookLoginEnabled: false,
  AppleLoginEnabled: false,
  GoogleLoginEnabled: false,
  CompanyName: 'Wayfare Demo',
  CompanyAddress: '401 Light St, Baltimore',
  CompanyWebsite: 'https://wayfare.example',
  contact_email: 'hello@demo.wayfare',
  CompanyPhone: '+1 410 555 0100',
  CompanyTerms: '',
  FacebookHandle: '',
  TwitterHandle: '',
  InstagramHandle: '',
  AppleStoreLink: '',
  PlayStoreLink: '',
  demoCity: false,
} satisfies PublicSettings;

export const testCarTypes: CarType[] = [
  {
    id: 'car-1',
    name: 'Economy',
    image: '',
    base_fare: 2.5,
    rate_per_unit_distance: 1.1,
    rate_per_hour: 15,
    min_fare: 7,
    convenience_fees: 10,
    convenience_fee_type: 'percentage',
    extra_info: 'Up to 4 riders',
    parcelTypes: [
      { description: 'Envelope', amount: 0 },
      { description: 'Small box', amount: 3 },
    ],
    options: [{ description: 'Fragile handling', amount: 2 }],
    cancelSlab: [],
  },
];

export function testUser(overrides: Partial<User> = {}): User {
  return {
    id: 'user-rider-1',
    createdAt: 0,
    usertype: 'rider',
    firstName: 'Rider',
    lastName: 'One',
    mobile: '+14105550201',
    email: 'rider1@demo.wayfare',
    regType: 'email',
    referralId: 'CAAAB',
    approved: true,
    walletBalance: 0,
    profile_image: null,
    licenseImage: null,
    lang: null,
    bankName: '',
    bankCode: '',
    bankAccount: '',
    ratings: null,
    location: null,
    vehicleMake: '',
    vehicleModel: '',
    vehicleNumber: '',
    carType: null,
    driverActiveStatus: false,
    queue: false,
    ...overrides,
  };
}

/** A client already holding what the start-up gate loads. */
export function seededClient(user: User | null, settings: Partial<PublicSettings> = {}) {
  const client = testQueryClient();
  client.setQueryData(queryKeys.settings, { ...testSettings, ...settings });
  client.setQueryData(queryKeys.carTypes, testCarTypes);
  client.setQueryData(queryKeys.languages, []);
  client.setQueryData(queryKeys.me, user);
  return client;
}

export function renderWithProviders(
  ui: ReactElement,
  { client = seededClient(null), path = '/', routes }: { client?: QueryClient; path?: string; routes?: RouteObject[] } = {},
) {
  const router = createMemoryRouter(routes ?? [{ path: '*', element: ui }], { initialEntries: [path] });
  const result = render(
    <AppProvider queryClient={client}>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...result, client, router };
}
