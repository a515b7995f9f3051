-- The panel's bookings grid sorts by every column it shows an index for
-- (spec §2 "Bookings"): the rider's name and the car type become columns,
-- copied from the document as driver_name is, and each sort key gets an
-- index ending in id, so a keyset page is one index seek.
ALTER TABLE bookings ADD COLUMN customer_name TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings ADD COLUMN car_type TEXT NOT NULL DEFAULT '';
UPDATE bookings SET
    customer_name = COALESCE(json_extract(doc, '$.customer_name'), ''),
    car_type = COALESCE(json_extract(doc, '$.carType'), '');
CREATE INDEX bookings_reference ON bookings (reference, id);
CREATE INDEX bookings_status_id ON bookings (status, id);
CREATE INDEX bookings_customer_name ON bookings (customer_name, id);
CREATE INDEX bookings_driver_name ON bookings (driver_name, id);
CREATE INDEX bookings_car_type ON bookings (car_type, id);
CREATE INDEX bookings_trip_cost ON bookings (trip_cost_micros, id);
