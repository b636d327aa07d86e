-- Times come back in UTC, whatever the machine's zone.
SET GLOBAL TimeZone = 'UTC'
